import Foundation
import KVOMediator
import Testing

/// Array changes announced by hand with their kind and indexes (Cocoa's `willChange:valuesAtIndexes:forKey:`)
/// reach observers exactly as the array proxy's do, for custom storage and for
/// `@Observed(automaticallyNotifies: false)` arrays.
@Suite struct IndexedManualNotificationTests {
    @Test func insertionRemovalAndReplacementOfCustomStorageCarryKindIndexesAndElements() {
        let list = TrackList(tracks: ["a", "b", "c"])
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(list, keyPath: \.tracks, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        list.insertTracks(["x", "y"], at: IndexSet([0, 4]))  // x a b c y
        list.removeTracks(at: IndexSet([1, 3]))  // x b y
        list.replaceTracks(at: IndexSet(integer: 2), with: ["Y"])  // x b Y
        #expect(
            recorder.changes == [
                change(\TrackList.tracks, kind: .insertion, new: ["x", "y"], indexes: IndexSet([0, 4])),
                change(\TrackList.tracks, kind: .removal, old: ["a", "c"], indexes: IndexSet([1, 3])),
                change(\TrackList.tracks, kind: .replacement, old: ["y"], new: ["Y"], indexes: IndexSet(integer: 2)),
            ]
        )
        #expect(list.tracks == ["x", "b", "Y"])
        #expect(list.errors.values.isEmpty)
    }

    @Test func priorRecordsCarryTheElementsReadBeforeTheChange() {
        let list = TrackList(tracks: ["a", "b"])
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(list, keyPath: \.tracks, options: [.old, .new, .prior]) { _, _, change in
            recorder.append(change)
        }
        list.replaceTracks(at: IndexSet(integer: 0), with: ["A"])
        list.insertTracks(["c"], at: IndexSet(integer: 2))
        let keyPath = \TrackList.tracks
        #expect(
            recorder.changes == [
                change(keyPath, kind: .replacement, old: ["a"], indexes: IndexSet(integer: 0), prior: true),
                change(keyPath, kind: .replacement, old: ["a"], new: ["A"], indexes: IndexSet(integer: 0)),
                change(keyPath, kind: .insertion, indexes: IndexSet(integer: 2), prior: true),
                change(keyPath, kind: .insertion, new: ["c"], indexes: IndexSet(integer: 2)),
            ]
        )
    }

    /// For every combination of options and every kind, the manual records equal the proxy's.
    @Test(arguments: 0..<16)
    func recordsEqualTheArrayProxysForTheSameMutation(optionBits: Int) {
        let options = KVOOptions(rawValue: UInt(optionBits)).subtracting(.initial)
        let list = TrackList(tracks: ["a", "b", "c"])
        let playlist = Playlist()
        playlist.songs = ["a", "b", "c"]
        let observer = TestObserver()
        let manual = Recorder<[String]>()
        let proxied = Recorder<[String]>()
        observer.kvoController.observe(list, keyPath: \.tracks, options: options) { _, _, change in
            manual.append(change)
        }
        observer.kvoController.observe(playlist, keyPath: \.songs, options: options) { _, _, change in
            proxied.append(change)
        }
        let songs = playlist.mutableArrayValue(for: \.songs)
        list.insertTracks(["p", "q"], at: IndexSet([1, 3]))
        songs.insert(["p", "q"], at: IndexSet([1, 3]))
        list.removeTracks(at: IndexSet([0, 4]))
        songs.remove(at: IndexSet([0, 4]))
        list.replaceTracks(at: IndexSet([0, 2]), with: ["P", "Q"])
        songs.replace(at: IndexSet([0, 2]), with: ["P", "Q"])
        #expect(manual.changes.map(RecordFields.init) == proxied.changes.map(RecordFields.init))
        #expect(manual.count == (options.contains(.prior) ? 6 : 3))
        #expect(list.tracks == playlist.songs)
    }

    @Test func withoutOldAndNewOnlyTheKindAndTheIndexesArrive() {
        let list = TrackList(tracks: ["a"])
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(list, keyPath: \.tracks, options: []) { _, _, change in recorder.append(change) }
        list.removeTracks(at: IndexSet(integer: 0))
        #expect(recorder.changes == [change(\TrackList.tracks, kind: .removal, indexes: IndexSet(integer: 0))])
    }

    @Test func aTokenOfCustomStorageGetsKindsAndAValueComputedFromItGetsASetting() throws {
        let list = TrackList(tracks: ["a"])
        let tokens = Recorder<[String]>()
        let token = try list.observe(\.tracks, options: [.old, .new]) { _, change in tokens.append(change) }
        let observer = TestObserver()
        let counts = Recorder<Int>()
        observer.kvoController.observe(list, keyPath: \.trackCount, options: [.old, .new]) { _, _, change in
            counts.append(change)
        }
        list.insertTracks(["b"], at: IndexSet(integer: 1))
        #expect(
            tokens.changes == [change(\TrackList.tracks, kind: .insertion, new: ["b"], indexes: IndexSet(integer: 1))]
        )
        #expect(counts.changes == [change(\TrackList.trackCount, old: 1, new: 2)])
        token.invalidate()
    }

    /// Every registration form whose value is an `@Observed(automaticallyNotifies: false)` array gets the
    /// kind; a value computed from it, and a value stream, get settings.
    @Test func everyFormOfAManuallyAnnouncedObservedArrayGetsTheKind() async throws {
        let holder = ManualPlaylistHolder()
        let playlist = holder.playlist
        playlist.songs = ["a", "b"]
        let observers = (0..<5).map { TestObserver(name: "observer \($0)") }
        let typed = Recorder<[String]>()
        let strings = Recorder<Any>()
        let chained = Recorder<[String]>()
        let stringChains = Recorder<Any>()
        let counts = Recorder<Int>()
        observers[0].kvoController.observe(playlist, keyPath: \.songs, options: [.old, .new]) { _, _, change in
            typed.append(change)
        }
        try observers[1].kvoController.observe(playlist, keyPath: "songs", options: [.old, .new]) { _, _, change in
            strings.append(change)
        }
        observers[2].kvoController.observe(holder, keyPath: \.playlist.songs, options: [.old, .new]) { _, _, change in
            chained.append(change)
        }
        try observers[3].kvoController.observe(holder, keyPath: "playlist.songs", options: [.old, .new]) {
            _,
            _,
            change in stringChains.append(change)
        }
        observers[4].kvoController.observe(playlist, keyPath: \.songs.count, options: [.old, .new]) { _, _, change in
            counts.append(change)
        }
        let values = try holder.values(for: \.playlist.songs)
        playlist.withChange(.replacement, at: IndexSet(integer: 1), of: \.songs) { playlist.songs[1] = "B" }
        func expected<Value>(_ keyPath: AnyKeyPath, _ wrap: ([String]) -> Value) -> [KVOChange<Value>] {
            [change(keyPath, kind: .replacement, old: wrap(["b"]), new: wrap(["B"]), indexes: IndexSet(integer: 1))]
        }
        #expect(typed.changes == expected(\ManualPlaylist.songs) { $0 })
        #expect(allMatch(strings.changes, expected(\ManualPlaylist.[kvoKeyPath: "songs"]) { $0 }))
        #expect(chained.changes == expected(\ManualPlaylistHolder.playlist.songs) { $0 })
        #expect(allMatch(stringChains.changes, expected(\ManualPlaylistHolder.[kvoKeyPath: "playlist.songs"]) { $0 }))
        #expect(counts.changes == [change(\ManualPlaylist.songs.count, old: 2, new: 2)])
        var iterator = values.makeAsyncIterator()
        #expect(await iterator.next() == ["a", "b"])
        #expect(await iterator.next() == ["a", "B"])
        withExtendedLifetime(observers) {}
    }

    @Test func emptyIndexesAnnounceNothingAndStillPair() {
        let list = TrackList(tracks: ["a"])
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(list, keyPath: \.tracks, options: [.new, .prior]) { _, _, change in
            recorder.append(change)
        }
        list.insertTracks([], at: IndexSet())
        list.removeTracks(at: IndexSet())
        #expect(recorder.count == 0)
        #expect(list.errors.values.isEmpty)
    }

    @Test func announcementsOfTwoArraysNestAndPairByKeyPath() {
        let list = TrackList(tracks: ["a"])
        let playlist = ManualPlaylist()
        let observer = TestObserver()
        let tracks = Recorder<[String]>()
        let songs = Recorder<[String]>()
        observer.kvoController.observe(list, keyPath: \.tracks, options: [.old, .new]) { _, _, change in
            tracks.append(change)
        }
        observer.kvoController.observe(playlist, keyPath: \.songs, options: [.old, .new]) { _, _, change in
            songs.append(change)
        }
        list.willChange(.insertion, at: IndexSet(integer: 0), for: \.tracks)
        playlist.willChange(.insertion, at: IndexSet(integer: 0), for: \.songs)
        list.editSilently { $0.insert("z", at: 0) }
        list.didChange(.insertion, at: IndexSet(integer: 0), for: \.tracks)
        playlist.songs = ["s"]
        playlist.didChange(.insertion, at: IndexSet(integer: 0), for: \.songs)
        #expect(
            tracks.changes == [change(\TrackList.tracks, kind: .insertion, new: ["z"], indexes: IndexSet(integer: 0))]
        )
        #expect(
            songs.changes == [
                change(\ManualPlaylist.songs, kind: .insertion, new: ["s"], indexes: IndexSet(integer: 0))
            ]
        )
        #expect(list.errors.values.isEmpty)
    }

    @Test func theSameArrayNestedPairsInnermostFirst() {
        let list = TrackList(tracks: ["a", "b"])
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(list, keyPath: \.tracks, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        list.withChange(.removal, at: IndexSet(integer: 1), of: \.tracks) {
            list.replaceTracks(at: IndexSet(integer: 0), with: ["A"])
            list.editSilently { $0.remove(at: 1) }
        }
        #expect(
            recorder.changes == [
                change(\TrackList.tracks, kind: .replacement, old: ["a"], new: ["A"], indexes: IndexSet(integer: 0)),
                change(\TrackList.tracks, kind: .removal, old: ["b"], indexes: IndexSet(integer: 1)),
            ]
        )
        #expect(list.errors.values.isEmpty)
    }

    @Test func withNoObserverTheStorageChangesAndNothingIsReported() {
        let list = TrackList(tracks: ["a"])
        list.insertTracks(["b"], at: IndexSet(integer: 1))
        list.replaceTracks(at: IndexSet(integer: 0), with: ["A"])
        list.removeTracks(at: IndexSet(integer: 1))
        #expect(list.tracks == ["A"])
        #expect(list.errors.values.isEmpty)
    }

    @Test func anObserverAddedBetweenWillAndDidGetsNothingOfThatChange() {
        let list = TrackList(tracks: ["a"])
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        list.willChange(.removal, at: IndexSet(integer: 0), for: \.tracks)
        observer.kvoController.observe(list, keyPath: \.tracks, options: [.old]) { _, _, change in
            recorder.append(change)
        }
        list.editSilently { $0.removeAll() }
        list.didChange(.removal, at: IndexSet(integer: 0), for: \.tracks)
        #expect(recorder.count == 0)
        #expect(list.errors.values.isEmpty)
        list.insertTracks(["b"], at: IndexSet(integer: 0))
        #expect(recorder.changes == [change(\TrackList.tracks, kind: .insertion, indexes: IndexSet(integer: 0))])
    }

    /// The proxies of custom storage give the same kinds: the registration's key path is the collection's.
    @Test func theProxiesOfCustomStorageGiveKindsAsTheAnnouncementsByHandDo() {
        let list = TrackList(tracks: ["a"], labels: ["x"])
        let observer = TestObserver()
        let tracks = Recorder<[String]>()
        let labels = Recorder<Set<String>>()
        observer.kvoController.observe(list, keyPath: \.tracks, options: [.old, .new]) { _, _, change in
            tracks.append(change)
        }
        observer.kvoController.observe(list, keyPath: \.labels, options: [.old, .new]) { _, _, change in
            labels.append(change)
        }
        list.mutableArrayValue(for: \.tracks).append("b")
        list.mutableSetValue(for: \.labels).replaceAll(with: ["y"])
        #expect(
            tracks.changes == [change(\TrackList.tracks, kind: .insertion, new: ["b"], indexes: IndexSet(integer: 1))]
        )
        #expect(labels.changes == [change(\TrackList.labels, kind: .replacement, old: ["x"], new: ["y"])])
    }
}
