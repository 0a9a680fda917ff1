import Foundation
import KVOMediator
import Observation
import Testing

/// A proxy of an `@Observed` collection changes the collection in place, and every form of registration
/// still gets exactly the records it got when each mutation went through the property's setter.
@Suite struct CollectionProxyInPlaceTests {
    /// One mutation of `["a", "b", "c", "d"]` and the record a registration of the array gets for it.
    struct Mutation: CustomTestStringConvertible, Sendable {
        let name: String
        let apply: @Sendable (KVOMutableArray<Playlist, String>) -> Void
        let record: KVOChange<[String]>
        let result: [String]
        var testDescription: String { name }
    }

    static let songs = \Playlist.songs
    static let mutations: [Mutation] = [
        Mutation(
            name: "insert at the front",
            apply: { $0.insert("x", at: 0) },
            record: change(songs, kind: .insertion, new: ["x"], indexes: [0]),
            result: ["x", "a", "b", "c", "d"]
        ),
        Mutation(
            name: "insert in the middle",
            apply: { $0.insert("x", at: 2) },
            record: change(songs, kind: .insertion, new: ["x"], indexes: [2]),
            result: ["a", "b", "x", "c", "d"]
        ),
        Mutation(
            name: "append",
            apply: { $0.append("x") },
            record: change(songs, kind: .insertion, new: ["x"], indexes: [4]),
            result: ["a", "b", "c", "d", "x"]
        ),
        Mutation(
            name: "remove the first",
            apply: { $0.removeFirst() },
            record: change(songs, kind: .removal, old: ["a"], indexes: [0]),
            result: ["b", "c", "d"]
        ),
        Mutation(
            name: "remove in the middle",
            apply: { $0.remove(at: 1) },
            record: change(songs, kind: .removal, old: ["b"], indexes: [1]),
            result: ["a", "c", "d"]
        ),
        Mutation(
            name: "remove the last",
            apply: { $0.removeLast() },
            record: change(songs, kind: .removal, old: ["d"], indexes: [3]),
            result: ["a", "b", "c"]
        ),
        Mutation(
            name: "replace the first",
            apply: { $0[0] = "x" },
            record: change(songs, kind: .replacement, old: ["a"], new: ["x"], indexes: [0]),
            result: ["x", "b", "c", "d"]
        ),
        Mutation(
            name: "replace in the middle",
            apply: { $0.replace(at: 2, with: "x") },
            record: change(songs, kind: .replacement, old: ["c"], new: ["x"], indexes: [2]),
            result: ["a", "b", "x", "d"]
        ),
        Mutation(
            name: "replace the last",
            apply: { $0.replace(at: [3], with: ["x"]) },
            record: change(songs, kind: .replacement, old: ["d"], new: ["x"], indexes: [3]),
            result: ["a", "b", "c", "x"]
        ),
        Mutation(
            name: "remove at scattered indexes",
            apply: { $0.remove(at: [0, 2, 3]) },
            record: change(songs, kind: .removal, old: ["a", "c", "d"], indexes: [0, 2, 3]),
            result: ["b"]
        ),
        Mutation(
            name: "append several",
            apply: { $0.append(contentsOf: ["x", "y"]) },
            record: change(songs, kind: .insertion, new: ["x", "y"], indexes: [4, 5]),
            result: ["a", "b", "c", "d", "x", "y"]
        ),
        Mutation(
            name: "remove all",
            apply: { $0.removeAll() },
            record: change(songs, kind: .removal, old: ["a", "b", "c", "d"], indexes: [0, 1, 2, 3]),
            result: []
        ),
    ]

    @Test(arguments: mutations)
    func everyMutationGivesTheSameRecordDirectlyThroughAChainAndByName(_ mutation: Mutation) throws {
        let owner = PlaylistOwner()
        let playlist = owner.shelf.playlist
        playlist.songs = ["a", "b", "c", "d"]
        let observer = TestObserver()
        let otherObserver = TestObserver()  // a controller keeps one registration per key path, in any form
        let direct = Recorder<[String]>()
        let chained = Recorder<[String]>()
        let named = Recorder<Any>()
        observer.kvoController.observe(playlist, keyPath: \.songs, options: [.old, .new]) { _, _, change in
            direct.append(change)
        }
        observer.kvoController.observe(owner, keyPath: \.shelf.playlist.songs, options: [.old, .new]) { _, _, change in
            chained.append(change)
        }
        try otherObserver.kvoController.observe(playlist, keyPath: "songs", options: [.old, .new]) { _, _, change in
            named.append(change)
        }
        mutation.apply(playlist.mutableArrayValue(for: \.songs))
        #expect(playlist.songs == mutation.result)
        #expect(direct.changes == [mutation.record])
        let record = mutation.record
        #expect(chained.changes.map(\.kind) == [record.kind])
        #expect(chained.changes.map(\.indexes) == [record.indexes])
        #expect(chained.changes.map(\.oldValue) == [record.oldValue])
        #expect(chained.changes.map(\.newValue) == [record.newValue])
        let byName = \Playlist.[kvoKeyPath: "songs"]
        #expect(
            allMatch(
                named.changes,
                [change(byName, kind: record.kind, old: record.oldValue, new: record.newValue, indexes: record.indexes)]
            )
        )
        withExtendedLifetime((observer, otherObserver)) {}
    }

    @Test(arguments: mutations)
    func everyMutationWithNobodyObservingChangesTheArrayAlike(_ mutation: Mutation) {
        let playlist = Playlist()
        playlist.songs = ["a", "b", "c", "d"]
        mutation.apply(playlist.mutableArrayValue(for: \.songs))
        #expect(playlist.songs == mutation.result)
    }

    /// The array's storage, with room to grow: only `playlist` holds it.
    private func playlistWithRoom() -> Playlist {
        let playlist = Playlist()
        var songs: [String] = []
        songs.reserveCapacity(64)
        songs.append("a")
        playlist.songs = songs
        return playlist
    }

    @Test func anAppendWithNobodyObservingKeepsTheArraysStorage() {
        let playlist = playlistWithRoom()
        let before = bufferAddress(playlist.songs)
        let proxy = playlist.mutableArrayValue(for: \.songs)
        for song in ["b", "c", "d"] { proxy.append(song) }
        proxy.insert("x", at: 0)
        proxy.remove(at: 1)
        #expect(bufferAddress(playlist.songs) == before)
        #expect(playlist.songs == ["x", "b", "c", "d"])
    }

    @Test func anObservedAppendKeepsTheArraysStorage() {
        let playlist = playlistWithRoom()
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(playlist, keyPath: \.songs, options: [.new]) { _, _, change in
            recorder.append(change)
        }
        let before = bufferAddress(playlist.songs)
        playlist.mutableArrayValue(for: \.songs).append("b")
        #expect(bufferAddress(playlist.songs) == before)
        #expect(recorder.changes == [change(\Playlist.songs, kind: .insertion, new: ["b"], indexes: [1])])
        withExtendedLifetime(observer) {}
    }

    @Test func aSubclassOverrideOfThePropertyRunsForEveryProxyMutation() {
        let playlist = CountingPlaylist()
        let proxy = playlist.mutableArrayValue(for: \.songs)
        proxy.append("a")
        proxy.append("b")
        proxy.remove(at: 0)
        #expect(playlist.didSetCount == 3)
        #expect(playlist.songs == ["b"])
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(playlist, keyPath: \.songs, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        proxy.insert("c", at: 0)
        #expect(playlist.didSetCount == 4)
        #expect(recorder.changes == [change(\CountingPlaylist.songs, kind: .insertion, new: ["c"], indexes: [0])])
        withExtendedLifetime(observer) {}
    }

    @Test func aRemovedElementIsReleasedAfterTheRemovalWithOrWithoutObservers() {
        for observed in [false, true] {
            let list = FarewellList()
            var seen: [Int] = []
            list.items = [Farewell { seen.append(list.items.count) }, Farewell {}]
            let observer = TestObserver()
            let recorder = Recorder<[Farewell]>()
            if observed {
                // (Without .old: a record would keep the removed element.)
                observer.kvoController.observe(list, keyPath: \.items, options: [.new]) { _, _, change in
                    recorder.append(change)
                }
            }
            list.mutableArrayValue(for: \.items).remove(at: 0)
            // The element's deinit ran once the removal was done: it saw the array of one.
            #expect(seen == [1], "observed: \(observed)")
            #expect(recorder.changes.map(\.kind) == (observed ? [.removal] : []))
            withExtendedLifetime(observer) {}
        }
    }

    @Test func aProxyMutationOfABridgedClassIsReportedToObservation() {
        let queue = BridgedQueue()
        let proxy = queue.mutableArrayValue(for: \.items)
        for observed in [false, true] {
            let observer = TestObserver()
            if observed {
                observer.kvoController.observe(queue, keyPath: \.items) { _, _, _ in }
            }
            let fired = CallCounter()
            withObservationTracking {
                _ = queue.items
            } onChange: {
                fired.increment()
            }
            proxy.append("job")
            #expect(fired.count == 1, "observed: \(observed)")
            withExtendedLifetime(observer) {}
        }
        #expect(queue.items == ["job", "job"])
    }

    @Test func aProxyOfAManuallyAnnouncedPropertyOfABridgedClassReportsNothingToObservation() {
        let queue = BridgedQueue()
        let fired = CallCounter()
        withObservationTracking {
            _ = queue.quiet
        } onChange: {
            fired.increment()
        }
        queue.mutableArrayValue(for: \.quiet).append("job")
        #expect(fired.count == 0)
        #expect(queue.quiet == ["job"])
    }

    @Test func aSetProxyMutatesInPlaceAndAnnouncesTheMembersChanged() {
        let playlist = Playlist()
        playlist.tags = ["a"]
        let observer = TestObserver()
        let recorder = Recorder<Set<String>>()
        observer.kvoController.observe(playlist, keyPath: \.tags, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        let tags = playlist.mutableSetValue(for: \.tags)
        tags.insert("b")
        tags.remove("a")
        #expect(playlist.tags == ["b"])
        #expect(
            recorder.changes == [
                change(\Playlist.tags, kind: .insertion, new: ["b"]),
                change(\Playlist.tags, kind: .removal, old: ["a"]),
            ]
        )
        withExtendedLifetime(observer) {}
    }
}
