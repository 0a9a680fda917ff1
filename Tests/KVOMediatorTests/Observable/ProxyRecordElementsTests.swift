import Foundation
import KVOMediator
import Testing

/// A proxy's one-element records (`[element]` as the inserted or removed elements) are made in storage the
/// thread keeps between mutations: records stay values, and no element outlives its mutation there.
@Suite struct ProxyRecordElementsTests {
    @Test func recordsACallbackKeepsHoldTheirOwnElementsThroughLaterMutations() {
        let playlist = SongList()
        let observer = TestObserver()
        let recorder = recordChanges(of: playlist, \.songs, by: observer)
        let songs = playlist.mutableArrayValue(for: \.songs)
        songs.append("a")
        songs.append("b")
        songs.insert("c", at: 0)
        songs.remove(at: 1)
        songs.removeLast()
        #expect(
            recorder.changes == [
                change(\SongList.songs, kind: .insertion, new: ["a"], indexes: [0]),
                change(\SongList.songs, kind: .insertion, new: ["b"], indexes: [1]),
                change(\SongList.songs, kind: .insertion, new: ["c"], indexes: [0]),
                change(\SongList.songs, kind: .removal, old: ["a"], indexes: [1]),
                change(\SongList.songs, kind: .removal, old: ["b"], indexes: [1]),
            ]
        )
        #expect(playlist.songs == ["c"])
    }

    @Test func anElementAppendedAndRemovedThroughAnObservedProxyIsReleasedWhenItLeavesTheArray() {
        let album = Album()
        let observer = TestObserver()
        let kinds = Recorder<[Track]>()
        observer.kvoController.observe(album, keyPath: \.tracks, options: [.old, .new]) { _, _, change in
            // Reads the elements and keeps nothing of the record.
            #expect(change.newValue?.count ?? 1 == 1)
            #expect(change.oldValue?.count ?? 1 == 1)
            kinds.append(KVOChange(kind: change.kind, indexes: change.indexes, keyPath: \Album.tracks))
        }
        let tracks = album.mutableArrayValue(for: \.tracks)
        weak var appended: Track?
        weak var inserted: Track?
        do {
            let first = Track("first")
            let second = Track("second")
            appended = first
            inserted = second
            tracks.append(first)
            tracks.insert(second, at: 0)
        }
        #expect(appended != nil)
        tracks.remove(at: 1)
        #expect(appended == nil)
        tracks.removeLast()
        #expect(inserted == nil)
        #expect(kinds.changes.map(\.kind) == [.insertion, .insertion, .removal, .removal])
        #expect(kinds.changes.map(\.indexes) == [[0], [0], [1], [0]])
    }

    @Test func aMutationInsideAnotherMutationsCallbackGetsElementsOfItsOwn() {
        let outer = SongList()
        let inner = Album()
        let observer = TestObserver()
        let innerRecords = Recorder<[Track]>()
        observer.kvoController.observe(inner, keyPath: \.tracks, options: [.old, .new]) { _, _, change in
            innerRecords.append(change)
        }
        let track = Track("inner")
        let outerRecords = Recorder<[String]>()
        observer.kvoController.observe(outer, keyPath: \.songs, options: [.old, .new]) { _, _, change in
            if change.newValue == ["a"] { inner.mutableArrayValue(for: \.tracks).append(track) }
            if change.newValue == ["b"] { inner.mutableArrayValue(for: \.tracks).removeLast() }
            outerRecords.append(change)
        }
        let songs = outer.mutableArrayValue(for: \.songs)
        songs.append("a")
        songs.append("b")
        songs.removeFirst()
        #expect(
            outerRecords.changes == [
                change(\SongList.songs, kind: .insertion, new: ["a"], indexes: [0]),
                change(\SongList.songs, kind: .insertion, new: ["b"], indexes: [1]),
                change(\SongList.songs, kind: .removal, old: ["a"], indexes: [0]),
            ]
        )
        #expect(innerRecords.changes.map(\.kind) == [.insertion, .removal])
        #expect(innerRecords.changes.map { $0.newValue?.map(\.title) } == [["inner"], nil])
        #expect(innerRecords.changes.map { $0.oldValue?.map(\.title) } == [nil, ["inner"]])
        #expect(inner.tracks.isEmpty)
    }

    @Test func mutationsOfArraysOfDifferentElementTypesOnOneThreadEachGetTheirOwnElements() {
        let playlist = SongList()
        let entries = NumberList()
        let observer = TestObserver()
        let songs = recordChanges(of: playlist, \.songs, by: observer)
        let numbers = recordChanges(of: entries, \.entries, by: observer)
        for round in 0..<3 {
            playlist.mutableArrayValue(for: \.songs).append("song \(round)")
            entries.mutableArrayValue(for: \.entries).append(round)
        }
        // Then numbers only (the thread's spare storage moves to them), and strings again.
        for number in 3..<6 { entries.mutableArrayValue(for: \.entries).append(number) }
        playlist.mutableArrayValue(for: \.songs).removeFirst()
        #expect(songs.changes.map(\.newValue) == [["song 0"], ["song 1"], ["song 2"], nil])
        #expect(songs.changes.last?.oldValue == ["song 0"])
        #expect(numbers.changes.map(\.newValue) == (0..<6).map { [$0] })
        #expect(numbers.changes.map(\.indexes) == (0..<6).map { [$0] })
    }

    @Test func proxyMutationsOnManyThreadsEachDeliverTheirOwnElements() async {
        let observer = TestObserver()
        let playlists = (0..<4).map { _ in SongList() }
        let recorders = playlists.map { recordChanges(of: $0, \.songs, by: observer) }
        await withTaskGroup(of: Void.self) { group in
            for (number, playlist) in playlists.enumerated() {
                group.addTask {
                    let songs = playlist.mutableArrayValue(for: \.songs)
                    for index in 0..<500 { songs.append("\(number).\(index)") }
                    for _ in 0..<500 { songs.removeFirst() }
                }
            }
        }
        for (number, recorder) in recorders.enumerated() {
            let expected = (0..<500).map { ["\(number).\($0)"] }
            #expect(recorder.changes.prefix(500).map(\.newValue) == expected)
            #expect(recorder.changes.suffix(500).map(\.oldValue) == expected)
            #expect(recorder.changes.suffix(500).allSatisfy { $0.indexes == [0] })
        }
    }

    @Test func aMutationOfTheSameElementTypeInsideAMutationsCallbackGetsElementsOfItsOwn() {
        let outer = SongList()
        let inner = SongList()
        let observer = TestObserver()
        let innerRecords = recordChanges(of: inner, \.songs, by: observer)
        let outerRecords = Recorder<[String]>()
        observer.kvoController.observe(outer, keyPath: \.songs, options: [.old, .new]) { _, _, change in
            let songs = inner.mutableArrayValue(for: \.songs)
            if change.kind == .insertion { songs.append("inner \(change.newValue ?? [])") } else { songs.removeFirst() }
            outerRecords.append(change)
        }
        let songs = outer.mutableArrayValue(for: \.songs)
        songs.append("a")
        songs.insert("b", at: 0)
        songs.removeLast()
        #expect(
            outerRecords.changes == [
                change(\SongList.songs, kind: .insertion, new: ["a"], indexes: [0]),
                change(\SongList.songs, kind: .insertion, new: ["b"], indexes: [0]),
                change(\SongList.songs, kind: .removal, old: ["a"], indexes: [1]),
            ]
        )
        #expect(
            innerRecords.changes == [
                change(\SongList.songs, kind: .insertion, new: ["inner [\"a\"]"], indexes: [0]),
                change(\SongList.songs, kind: .insertion, new: ["inner [\"b\"]"], indexes: [1]),
                change(\SongList.songs, kind: .removal, old: ["inner [\"a\"]"], indexes: [0]),
            ]
        )
        #expect(inner.songs == ["inner [\"b\"]"])
    }

    @Test func severalMutationsInOneTransactionEachKeepTheirElementsForTheOneRecordAtTheEnd() {
        let list = SongList()
        let observer = TestObserver()
        let recorder = recordChanges(of: list, \.songs, by: observer)
        let songs = list.mutableArrayValue(for: \.songs)
        withKVOTransaction {
            songs.append("a")
            songs.append("b")
            songs.remove(at: 0)
        }
        songs.append("c")
        #expect(
            recorder.changes == [
                change(\SongList.songs, old: [], new: ["b"]),
                change(\SongList.songs, kind: .insertion, new: ["c"], indexes: [1]),
            ]
        )
    }
}
