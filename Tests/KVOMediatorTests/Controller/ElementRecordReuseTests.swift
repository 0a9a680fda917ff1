import Foundation
import Testing

@testable import KVOMediator

/// An element's change records are built in arrays the last record gave back: a record a callback keeps
/// keeps its values, a change made inside a callback (or on another thread) while the arrays are in use
/// gets its own, and values are released when nothing holds them.
@Suite struct ElementRecordReuseTests {
    private func setting(_ old: [String]?, _ new: [String]?, at indexes: IndexSet) -> KVOChange<[String]> {
        KVOChange(kind: .setting, oldValue: old, newValue: new, indexes: indexes, keyPath: \Album.tracks)
    }

    @Test func recordsKeptByTheCallbackKeepTheirValuesAsLaterChangesComeIn() {
        let song = Track("s0")
        let album = Album()
        album.tracks = [Track("a"), song, song]
        let observer = TestObserver()
        let records = Recorder<[String]>()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: [.old, .new]) {
            _,
            _,
            change in records.append(change)
        }
        for step in 1...3 { song.title = "s\(step)" }
        album.tracks[0].title = "A"
        #expect(
            records.changes == [
                setting(["s0", "s0"], ["s1", "s1"], at: IndexSet([1, 2])),
                setting(["s1", "s1"], ["s2", "s2"], at: IndexSet([1, 2])),
                setting(["s2", "s2"], ["s3", "s3"], at: IndexSet([1, 2])),
                setting(["a"], ["A"], at: IndexSet(integer: 0)),
            ]
        )
    }

    @Test func aChangeMadeInsideACallbackGetsItsOwnRecord() {
        let album = Album(["a", "b"])
        let observer = TestObserver()
        let records = Recorder<[String]>()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: [.old, .new]) {
            _,
            album,
            change in
            records.append(change)
            // (The first element's change renames the second, from inside its own delivery.)
            if change.indexes == IndexSet(integer: 0), change.newValue == ["x"] { album.tracks[1].title = "y" }
        }
        album.tracks[0].title = "x"
        album.tracks[0].title = "z"
        #expect(
            records.changes == [
                setting(["a"], ["x"], at: IndexSet(integer: 0)), setting(["b"], ["y"], at: IndexSet(integer: 1)),
                setting(["x"], ["z"], at: IndexSet(integer: 0)),
            ]
        )
    }

    @Test func valuesAreReleasedOnceNoRecordHoldsThem() {
        final class Box {}
        final class Holder: KeyValueObservable, @unchecked Sendable {  // changed by one thread at a time
            let kvoRegistrar = KVORegistrar()
            @Observed var box: Box? = Box()
        }
        final class Shelf: KeyValueObservable, @unchecked Sendable {  // changed by one thread at a time
            let kvoRegistrar = KVORegistrar()
            @Observed var holders: [Holder] = [Holder()]
        }
        let shelf = Shelf()
        let observer = TestObserver()
        let calls = CallCounter()
        observer.kvoController.observe(shelf, each: \.holders, keyPath: \.box, options: [.old, .new]) { _, _, _ in
            calls.increment()
        }
        weak var first: Box?
        weak var second: Box?
        do {
            let replacement = Box()
            first = shelf.holders[0].box
            second = replacement
            shelf.holders[0].box = replacement
            shelf.holders[0].box = nil
        }
        #expect(calls.count == 2)
        #expect(first == nil)
        #expect(second == nil)
    }

    @Test func threadsChangingTheirOwnElementsGetExactRecords() {
        let album = Album((0..<4).map { "t\($0)" })
        let observer = TestObserver()
        let records = Recorder<[String]>()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: [.old, .new]) {
            _,
            _,
            change in records.append(change)
        }
        let tracks = album.tracks
        let threads = tracks.indices.map { index in
            TestThread { for step in 1...500 { tracks[index].title = "t\(index)-\(step)" } }
        }
        for thread in threads { thread.join() }
        #expect(records.count == 2_000)
        for index in tracks.indices {
            let mine = records.changes.filter { $0.indexes == IndexSet(integer: index) }
            let olds = ["t\(index)"] + (1..<500).map { "t\(index)-\($0)" }
            #expect(mine.map { $0.oldValue! } == olds.map { [$0] })
            #expect(mine.map { $0.newValue! } == (1...500).map { ["t\(index)-\($0)"] })
        }
    }
}
