import Foundation
import KVOMediator
import Testing

/// A collection proxy of custom storage (a computed property that announces by hand, not `@Observed`)
/// announces each mutation to every registration of the collection with its kind and indexes, prior
/// records and transactions included, and as a setting to one that re-reads.
@Suite struct CustomStorageProxyTests {
    @Test func everyRegistrationOfTheCollectionGetsTheKindWithItsPriorRecord() {
        let list = TrackList(tracks: ["a"])
        let observer = TestObserver()
        let withPrior = Recorder<[String]>()
        let newOnly = Recorder<[String]>()
        observer.kvoController.observe(list, keyPath: \.tracks, options: [.old, .new, .prior]) { _, _, change in
            withPrior.append(change)
        }
        let other = TestObserver()
        other.kvoController.observe(list, keyPath: \.tracks, options: [.new]) { _, _, change in
            newOnly.append(change)
        }
        let tracks = list.mutableArrayValue(for: \.tracks)
        tracks.insert("z", at: 0)
        tracks.remove(at: 1)
        #expect(
            withPrior.changes == [
                change(\TrackList.tracks, kind: .insertion, indexes: IndexSet(integer: 0), prior: true),
                change(\TrackList.tracks, kind: .insertion, new: ["z"], indexes: IndexSet(integer: 0)),
                change(\TrackList.tracks, kind: .removal, old: ["a"], indexes: IndexSet(integer: 1), prior: true),
                change(\TrackList.tracks, kind: .removal, old: ["a"], indexes: IndexSet(integer: 1)),
            ]
        )
        #expect(
            newOnly.changes == [
                change(\TrackList.tracks, kind: .insertion, new: ["z"], indexes: IndexSet(integer: 0)),
                change(\TrackList.tracks, kind: .removal, indexes: IndexSet(integer: 1)),
            ]
        )
        #expect(list.tracks == ["z"])
    }

    @Test func aMutationInATransactionIsDeliveredOnceAtItsEndWithItsKind() {
        let list = TrackList(tracks: ["a"])
        let observer = TestObserver()
        let withPrior = Recorder<[String]>()
        let newOnly = Recorder<[String]>()
        observer.kvoController.observe(list, keyPath: \.tracks, options: [.old, .new, .prior]) { _, _, change in
            withPrior.append(change)
        }
        let other = TestObserver()
        other.kvoController.observe(list, keyPath: \.tracks, options: [.new]) { _, _, change in
            newOnly.append(change)
        }
        withKVOTransaction {
            list.mutableArrayValue(for: \.tracks).append("b")
            #expect(withPrior.count == 0)
            #expect(newOnly.count == 0)
        }
        #expect(
            withPrior.changes == [
                change(\TrackList.tracks, kind: .insertion, indexes: IndexSet(integer: 1), prior: true),
                change(\TrackList.tracks, kind: .insertion, new: ["b"], indexes: IndexSet(integer: 1)),
            ]
        )
        #expect(
            newOnly.changes == [change(\TrackList.tracks, kind: .insertion, new: ["b"], indexes: IndexSet(integer: 1))]
        )
    }

    @Test func aRegistrationThatReReadsGetsASettingBesideOneThatGetsTheKind() {
        let list = TrackList(tracks: ["a", "b"])
        let observer = TestObserver()
        let whole = Recorder<[String]>()
        let count = Recorder<Int>()
        observer.kvoController.observe(list, keyPath: \.tracks, options: [.old, .new]) { _, _, change in
            whole.append(change)
        }
        observer.kvoController.observe(list, keyPath: \.tracks.count, options: [.old, .new]) { _, _, change in
            count.append(change)
        }
        list.mutableArrayValue(for: \.tracks).remove(at: 0)
        #expect(whole.changes == [change(\TrackList.tracks, kind: .removal, old: ["a"], indexes: IndexSet(integer: 0))])
        #expect(count.changes == [change(\TrackList.tracks.count, old: 2, new: 1)])
    }
}
