import Foundation
import KVOMediator
import Testing

/// Array and set mutations are announced with Cocoa's kinds, indexes and elements.
@Suite struct CollectionMutationTests {
    /// A playlist with three songs and a recorder of its `songs` changes.
    private func observedPlaylist(options: KVOOptions = [.old, .new]) -> (Playlist, TestObserver, Recorder<[String]>) {
        let playlist = Playlist()
        playlist.songs = ["a", "b", "c"]
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(playlist, keyPath: \.songs, options: options) { _, _, change in
            recorder.append(change)
        }
        return (playlist, observer, recorder)
    }

    @Test func appendIsAnInsertionAtTheEnd() {
        let (playlist, observer, recorder) = observedPlaylist()
        defer { withExtendedLifetime(observer) {} }
        playlist.mutableArrayValue(for: \.songs).append("d")
        #expect(
            recorder.changes == [change(\Playlist.songs, kind: .insertion, new: ["d"], indexes: IndexSet(integer: 3))]
        )
        #expect(playlist.songs == ["a", "b", "c", "d"])
    }

    @Test func appendContentsOfIsOneInsertionOfARange() {
        let (playlist, observer, recorder) = observedPlaylist()
        defer { withExtendedLifetime(observer) {} }
        playlist.mutableArrayValue(for: \.songs).append(contentsOf: ["d", "e"])
        #expect(
            recorder.changes == [
                change(\Playlist.songs, kind: .insertion, new: ["d", "e"], indexes: IndexSet(integersIn: 3..<5))
            ]
        )
    }

    @Test func insertAtAnIndex() {
        let (playlist, observer, recorder) = observedPlaylist()
        defer { withExtendedLifetime(observer) {} }
        let songs = playlist.mutableArrayValue(for: \.songs)
        songs.insert("x", at: 1)
        songs.insert(contentsOf: ["y", "z"], at: 0)
        #expect(
            recorder.changes == [
                change(\Playlist.songs, kind: .insertion, new: ["x"], indexes: IndexSet(integer: 1)),
                change(\Playlist.songs, kind: .insertion, new: ["y", "z"], indexes: IndexSet(integersIn: 0..<2)),
            ]
        )
        #expect(playlist.songs == ["y", "z", "a", "x", "b", "c"])
    }

    @Test func batchInsertAtScatteredIndexes() {
        let (playlist, observer, recorder) = observedPlaylist()
        defer { withExtendedLifetime(observer) {} }
        var indexes = IndexSet()
        indexes.insert(0)
        indexes.insert(2)
        indexes.insert(5)
        playlist.mutableArrayValue(for: \.songs).insert(["p", "q", "r"], at: indexes)
        #expect(
            recorder.changes == [change(\Playlist.songs, kind: .insertion, new: ["p", "q", "r"], indexes: indexes)]
        )
        #expect(playlist.songs == ["p", "a", "q", "b", "c", "r"])
    }

    @Test func removeAtAnIndexAndAtSeveralIndexes() {
        let (playlist, observer, recorder) = observedPlaylist()
        defer { withExtendedLifetime(observer) {} }
        playlist.songs = ["a", "b", "c"]  // a plain assignment is a setting
        let songs = playlist.mutableArrayValue(for: \.songs)
        #expect(songs.remove(at: 1) == "b")
        songs.append(contentsOf: ["d", "e"])
        var indexes = IndexSet()
        indexes.insert(0)
        indexes.insert(3)
        songs.remove(at: indexes)
        #expect(
            recorder.changes == [
                change(\Playlist.songs, old: ["a", "b", "c"], new: ["a", "b", "c"]),
                change(\Playlist.songs, kind: .removal, old: ["b"], indexes: IndexSet(integer: 1)),
                change(\Playlist.songs, kind: .insertion, new: ["d", "e"], indexes: IndexSet(integersIn: 2..<4)),
                change(\Playlist.songs, kind: .removal, old: ["a", "e"], indexes: indexes),
            ]
        )
        #expect(playlist.songs == ["c", "d"])
    }

    @Test func removeFirstLastAndAll() {
        let (playlist, observer, recorder) = observedPlaylist()
        defer { withExtendedLifetime(observer) {} }
        let songs = playlist.mutableArrayValue(for: \.songs)
        #expect(songs.removeFirst() == "a")
        #expect(songs.removeLast() == "c")
        songs.removeAll()
        songs.removeAll()  // already empty: nothing to announce
        #expect(
            recorder.changes == [
                change(\Playlist.songs, kind: .removal, old: ["a"], indexes: IndexSet(integer: 0)),
                change(\Playlist.songs, kind: .removal, old: ["c"], indexes: IndexSet(integer: 1)),
                change(\Playlist.songs, kind: .removal, old: ["b"], indexes: IndexSet(integer: 0)),
            ]
        )
    }

    @Test func replaceOneAndSeveral() {
        let (playlist, observer, recorder) = observedPlaylist()
        defer { withExtendedLifetime(observer) {} }
        let songs = playlist.mutableArrayValue(for: \.songs)
        songs[1] = "B"
        var indexes = IndexSet()
        indexes.insert(0)
        indexes.insert(2)
        songs.replace(at: indexes, with: ["A", "C"])
        songs.replace(at: 1, with: "β")
        #expect(
            recorder.changes == [
                change(\Playlist.songs, kind: .replacement, old: ["b"], new: ["B"], indexes: IndexSet(integer: 1)),
                change(\Playlist.songs, kind: .replacement, old: ["a", "c"], new: ["A", "C"], indexes: indexes),
                change(\Playlist.songs, kind: .replacement, old: ["B"], new: ["β"], indexes: IndexSet(integer: 1)),
            ]
        )
        #expect(playlist.songs == ["A", "β", "C"])
    }

    @Test func priorRecordsCarryKindIndexesAndTheElementsAboutToGo() {
        let (playlist, observer, recorder) = observedPlaylist(options: [.old, .new, .prior])
        defer { withExtendedLifetime(observer) {} }
        playlist.mutableArrayValue(for: \.songs).remove(at: 2)
        #expect(
            recorder.changes == [
                change(\Playlist.songs, kind: .removal, old: ["c"], indexes: IndexSet(integer: 2), prior: true),
                change(\Playlist.songs, kind: .removal, old: ["c"], indexes: IndexSet(integer: 2)),
            ]
        )
    }

    @Test func withoutOldAndNewOnlyKindAndIndexesAreSent() {
        let (playlist, observer, recorder) = observedPlaylist(options: [])
        defer { withExtendedLifetime(observer) {} }
        playlist.mutableArrayValue(for: \.songs).append("d")
        #expect(recorder.changes == [change(\Playlist.songs, kind: .insertion, indexes: IndexSet(integer: 3))])
    }

    @Test func keyPathsThroughTheArrayGetASetting() {
        let playlist = Playlist()
        let observer = TestObserver()
        let counts = Recorder<Int>()
        observer.kvoController.observe(playlist, keyPath: \.songCount, options: [.old, .new]) { _, _, change in
            counts.append(change)
        }
        playlist.mutableArrayValue(for: \.songs).append("a")
        #expect(counts.changes == [change(\Playlist.songCount, old: 0, new: 1)])
    }

    @Test func mutationWithNoObserverJustMutates() {
        let playlist = Playlist()
        let songs = playlist.mutableArrayValue(for: \.songs)
        songs.append("a")
        songs.insert("b", at: 0)
        songs[1] = "c"
        #expect(playlist.songs == ["b", "c"])
        #expect(songs.count == 2 && songs.elements == ["b", "c"])
    }

    @Test func setInsertionsAndRemovalsCarryTheElementsActuallyChanged() {
        let playlist = Playlist()
        playlist.tags = ["rock"]
        let observer = TestObserver()
        let recorder = Recorder<Set<String>>()
        observer.kvoController.observe(playlist, keyPath: \.tags, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        let tags = playlist.mutableSetValue(for: \.tags)
        tags.insert("jazz")
        tags.formUnion(["jazz", "blues"])
        tags.remove("rock")
        tags.subtract(["blues", "pop"])
        tags.insert("folk")
        tags.formIntersection(["folk"])
        tags.removeAll()
        playlist.tags = ["new"]
        #expect(
            recorder.changes == [
                change(\Playlist.tags, kind: .insertion, new: ["jazz"]),
                change(\Playlist.tags, kind: .insertion, new: ["blues"]),
                change(\Playlist.tags, kind: .removal, old: ["rock"]),
                change(\Playlist.tags, kind: .removal, old: ["blues"]),
                change(\Playlist.tags, kind: .insertion, new: ["folk"]),
                change(\Playlist.tags, kind: .removal, old: ["jazz"]),
                change(\Playlist.tags, kind: .removal, old: ["folk"]),
                change(\Playlist.tags, old: [], new: ["new"]),
            ]
        )
        #expect(recorder.changes.allSatisfy { $0.indexes == nil })
    }

    @Test func outOfRangeIndexTrapsWithAMessage() async {
        await #expect(processExitsWith: .failure) {
            let playlist = Playlist()
            playlist.mutableArrayValue(for: \.songs).remove(at: IndexSet(integer: 4))
        }
    }

    @Test func aProxyMadeThroughOtherObjectsSetsTheCollectionBackAndEachObserverGetsOneSetting() {
        let owner = PlaylistOwner()
        let playlist = owner.shelf.playlist
        playlist.songs = ["a", "b"]
        playlist.tags = ["t"]
        let observer = TestObserver()
        let direct = Recorder<[String]>()
        let chained = Recorder<[String]>()
        let tags = Recorder<Set<String>>()
        let links = CallCounter()
        observer.kvoController.observe(playlist, keyPath: \.songs, options: [.old, .new]) { _, _, change in
            direct.append(change)
        }
        observer.kvoController.observe(owner, keyPath: \.shelf.playlist.songs, options: [.old, .new]) { _, _, change in
            chained.append(change)
        }
        observer.kvoController.observe(playlist, keyPath: \.tags, options: [.old, .new]) { _, _, change in
            tags.append(change)
        }
        observer.kvoController.observe(owner, keyPath: \.shelf) { _, _, _ in links.increment() }
        owner.mutableArrayValue(for: \.shelf.playlist.songs).insert("x", at: 1)
        owner.mutableSetValue(for: \.shelf.playlist.tags).insert("u")
        #expect(
            direct.changes == [KVOChange(oldValue: ["a", "b"], newValue: ["a", "x", "b"], keyPath: \Playlist.songs)]
        )
        #expect(
            chained.changes == [
                KVOChange(
                    oldValue: ["a", "b"],
                    newValue: ["a", "x", "b"],
                    keyPath: \PlaylistOwner.shelf.playlist.songs
                )
            ]
        )
        #expect(tags.changes == [KVOChange(oldValue: ["t"], newValue: ["t", "u"], keyPath: \Playlist.tags)])
        #expect(links.count == 0)
    }

    @Test func customStorageWhoseGetterAlsoReadsAnotherObjectKeepsItsKinds() {
        let list = GatedList()
        let observer = TestObserver()
        let records = Recorder<[String]>()
        observer.kvoController.observe(list, keyPath: \.items, options: [.new]) { _, _, change in records.append(change)
        }
        let proxy = list.mutableArrayValue(for: \.items)
        proxy.append("a")
        proxy.insert("b", at: 0)
        #expect(
            records.changes == [
                KVOChange(kind: .insertion, newValue: ["a"], indexes: IndexSet(integer: 0), keyPath: \GatedList.items),
                KVOChange(kind: .insertion, newValue: ["b"], indexes: IndexSet(integer: 0), keyPath: \GatedList.items),
            ]
        )
    }

    @Test func aNegativeIndexTrapsWithTheProxysMessageBeforeAnythingIsAnnounced() async throws {
        // (One exit test each: an exit test's body captures nothing.)
        let results = [
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                observedPlaylistProxy().insert(["x"], at: IndexSet(integer: -1))
            },
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                observedPlaylistProxy().insert(contentsOf: ["x"], at: -1)
            },
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                observedPlaylistProxy().remove(at: IndexSet(integer: -1))
            },
            try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                observedPlaylistProxy().replace(at: IndexSet(integer: -1), with: ["x"])
            },
        ]
        for result in results {
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(!message.contains("announced"))
            #if DEBUG  // (An optimised build traps without printing a precondition's message.)
            #expect(message.contains("KVOMutableArray.") && message.contains("index -1"))
            #endif
        }
    }

    /// As Cocoa's proxies: with automatic notification off, a proxy mutation is silent, and the owner's
    /// own announcement around it is delivered as a setting.
    @Test func proxiesOfManuallyAnnouncedCollectionsAnnounceNothingThemselves() {
        let playlist = ManualPlaylist()
        let observer = TestObserver()
        let songs = Recorder<[String]>()
        let tags = Recorder<Set<String>>()
        observer.kvoController.observe(playlist, keyPath: \.songs, options: [.old, .new]) { _, _, change in
            songs.append(change)
        }
        observer.kvoController.observe(playlist, keyPath: \.tags, options: [.old, .new]) { _, _, change in
            tags.append(change)
        }
        playlist.mutableArrayValue(for: \.songs).append("a")
        playlist.mutableSetValue(for: \.tags).insert("x")
        #expect(songs.changes.isEmpty)
        #expect(tags.changes.isEmpty)
        #expect(playlist.songs == ["a"])
        #expect(playlist.tags == ["x"])

        playlist.willChangeValue(for: \.songs)
        playlist.mutableArrayValue(for: \.songs).append("b")
        playlist.didChangeValue(for: \.songs)
        #expect(songs.changes == [change(\ManualPlaylist.songs, old: ["a"], new: ["a", "b"])])
        withExtendedLifetime(observer) {}
    }

    @Test func proxiesOfManuallyAnnouncedCollectionsOfASubclassAnnounceNothingThemselves() {
        let playlist = ManualSubPlaylist()
        let observer = TestObserver()
        let songs = Recorder<[String]>()
        observer.kvoController.observe(playlist, keyPath: \.songs, options: [.old, .new]) { _, _, change in
            songs.append(change)
        }
        playlist.willChangeValue(for: \.songs)
        playlist.mutableArrayValue(for: \.songs).append("a")
        playlist.didChangeValue(for: \.songs)
        #expect(songs.changes == [change(\ManualSubPlaylist.songs, old: [String](), new: ["a"])])
        withExtendedLifetime(observer) {}
    }
}

/// The proxy of a playlist of two songs observed with `.prior`, whose records are written to standard error
/// (for exit tests).
private func observedPlaylistProxy() -> KVOMutableArray<Playlist, String> {
    let playlist = Playlist()
    playlist.songs = ["a", "b"]
    let observer = TestObserver()
    observer.kvoController.observe(playlist, keyPath: \.songs, options: [.prior, .new]) { _, _, change in
        FileHandle.standardError.write(Data("announced \(change.kind)\n".utf8))
    }
    _ = Unmanaged.passRetained(observer)  // (kept for the life of the exit test's process)
    return playlist.mutableArrayValue(for: \.songs)
}
