import Foundation
import KVOMediator
import Observation
import Testing

/// A proxy mutation's callbacks keep the contracts a set's do, whichever way the mutation reaches its
/// registrations: one on the slot alone, or several. Once `unobserve` returns no callback of the
/// registration starts; a callback may mutate the collection again or let go of what it observes; code
/// of the user's that runs with the mutation itself (Observation's willSet and didSet) may end the
/// registration.
@Suite struct CollectionCallbackContractTests {
    /// As for a set: once `unobserve` returns, even inside the mutation's prior callback, no callback of
    /// that registration starts, whichever way the mutation reaches it.
    @Test(arguments: [false, true])
    func aPriorCallbackThatUnobservesGetsNoChangeRecord(besideAnotherRegistration: Bool) {
        let playlist = Playlist()
        playlist.songs = ["a"]
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        let other = Recorder<[String]>()
        observer.kvoController.observe(playlist, keyPath: \.songs, options: [.new, .prior]) {
            observer,
            playlist,
            change in
            recorder.append(change)
            if change.isPrior { observer.kvoController.unobserve(playlist, keyPath: \.songs) }
        }
        let bystander = TestObserver()
        if besideAnotherRegistration {
            bystander.kvoController.observe(playlist, keyPath: \.songs, options: [.new]) { _, _, change in
                other.append(change)
            }
        }
        playlist.mutableArrayValue(for: \.songs).append("b")
        playlist.mutableArrayValue(for: \.songs).append("c")
        #expect(
            recorder.changes == [change(\Playlist.songs, kind: .insertion, indexes: IndexSet(integer: 1), prior: true)]
        )
        let inserted = [
            change(\Playlist.songs, kind: .insertion, new: ["b"], indexes: IndexSet(integer: 1)),
            change(\Playlist.songs, kind: .insertion, new: ["c"], indexes: IndexSet(integer: 2)),
        ]
        #expect(other.changes == (besideAnotherRegistration ? inserted : []))
        #expect(playlist.songs == ["a", "b", "c"])
        withExtendedLifetime((observer, bystander)) {}
    }

    /// The records say where the element went: the prior callback's insertion at the front moves the
    /// appended element's place, and it is inserted there, after it.
    @Test func aPriorCallbackThatInsertsMovesWhereAnAppendGoes() {
        let playlist = Playlist()
        playlist.songs = ["a"]
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(playlist, keyPath: \.songs, options: [.new, .prior]) { _, playlist, change in
            recorder.append(change)
            if change.isPrior, change.indexes == IndexSet(integer: 1) {
                playlist.mutableArrayValue(for: \.songs).insert("z", at: 0)
            }
        }
        playlist.mutableArrayValue(for: \.songs).append("b")
        #expect(
            recorder.changes == [
                change(\Playlist.songs, kind: .insertion, indexes: IndexSet(integer: 1), prior: true),
                change(\Playlist.songs, kind: .insertion, indexes: IndexSet(integer: 0), prior: true),
                change(\Playlist.songs, kind: .insertion, new: ["z"], indexes: IndexSet(integer: 0)),
                change(\Playlist.songs, kind: .insertion, new: ["b"], indexes: IndexSet(integer: 1)),
            ]
        )
        #expect(playlist.songs == ["z", "b", "a"])
        withExtendedLifetime(observer) {}
    }

    @Test func aChangeCallbackThatAppendsGetsBothRecordsInOrder() {
        let playlist = Playlist()
        playlist.songs = ["a"]
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(playlist, keyPath: \.songs, options: [.new]) { _, playlist, change in
            recorder.append(change)
            if change.newValue == ["b"] { playlist.mutableArrayValue(for: \.songs).append("c") }
        }
        playlist.mutableArrayValue(for: \.songs).append("b")
        #expect(
            recorder.changes == [
                change(\Playlist.songs, kind: .insertion, new: ["b"], indexes: IndexSet(integer: 1)),
                change(\Playlist.songs, kind: .insertion, new: ["c"], indexes: IndexSet(integer: 2)),
            ]
        )
        #expect(playlist.songs == ["a", "b", "c"])
        withExtendedLifetime(observer) {}
    }

    /// Observation's onChange runs at the mutation's willSet, which is not a callback of this
    /// registration: the registration's end there does not wait for anything, and the change record
    /// that would follow is not delivered.
    @Test func anObservationOnChangeThatUnobservesDuringAProxyMutationEndsTheRegistration() {
        let queue = BridgedQueue()
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(queue, keyPath: \.items, options: [.new, .prior]) { _, _, change in
            recorder.append(change)
        }
        withObservationTracking {
            _ = queue.items
        } onChange: {
            observer.kvoController.unobserve(queue, keyPath: \.items)
        }
        queue.mutableArrayValue(for: \.items).append("job")
        #expect(
            recorder.changes == [
                change(\BridgedQueue.items, kind: .insertion, indexes: IndexSet(integer: 0), prior: true)
            ]
        )
        #expect(queue.items == ["job"])
        withExtendedLifetime(observer) {}
    }

    /// A chain's record holds its observed object only while it is delivered: let go of everywhere else
    /// by the callback, the object goes once the record is done, and its deinit ends the registration.
    @Test func aChainsObservedObjectLetGoByItsCallbackGoesOnceTheRecordIsDelivered() throws {
        let slot = StrongSlot(SelfWatchingPlaylistOwner())
        weak let owner = slot.object
        let playlist = slot.object!.shelf.playlist
        let recorder = Recorder<[String]>()
        slot.object!.token = try slot.object!.observe(\.shelf.playlist.songs, options: [.new]) { _, change in
            recorder.append(change)
            slot.clear()
        }
        playlist.mutableArrayValue(for: \.songs).append("a")
        #expect(owner == nil)
        playlist.mutableArrayValue(for: \.songs).append("b")
        #expect(
            recorder.changes == [
                change(
                    \SelfWatchingPlaylistOwner.shelf.playlist.songs,
                    kind: .insertion,
                    new: ["a"],
                    indexes: IndexSet(integer: 0)
                )
            ]
        )
        #expect(playlist.songs == ["a", "b"])
    }
}
