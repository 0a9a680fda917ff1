import Foundation
import KVOMediator
import Testing

@testable import KVOMediator

/// A proxy mutation reaches every registration whose value is the collection with Cocoa's kind, indexes
/// and elements, whichever form the registration was made in (string key path, chain, token, `keyPaths:`,
/// delegate); registrations of values computed from it get a setting. (The typed direct form is in
/// `CollectionMutationTests`.)
@Suite struct CollectionKindTests {
    // MARK: Arrays

    @Test("A string key path of an array gets the proxy's kinds, indexes and elements")
    func stringKeyPathOfAnArrayGetsKinds() throws {
        let playlist = Self.playlist()
        let observer = TestObserver()
        let records = Recorder<Any>()
        try observer.kvoController.observe(playlist, keyPath: "songs", options: [.old, .new]) { _, _, change in
            records.append(change)
        }
        Self.mutateSongs(of: playlist)
        #expect(allMatch(records.changes, Self.songRecords(\Playlist.[kvoKeyPath: "songs"]) { $0 }))
        #expect(playlist.songs == ["A", "c"])
    }

    @Test("A typed chain with an optional link ending at an array gets kinds: \\.next?.songs")
    func optionalChainEndingAtAnArrayGetsKinds() {
        let shelf = PlaylistShelf()
        shelf.next = Self.playlist()
        let observer = TestObserver()
        let recorder = Recorder<[String]?>()
        observer.kvoController.observe(shelf, keyPath: \.next?.songs, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        Self.mutateSongs(of: shelf.next!)
        #expect(recorder.changes == Self.songRecords(\PlaylistShelf.next?.songs) { Optional($0) })
    }

    @Test("A typed chain of three links ending at an array gets kinds: \\.shelf.playlist.songs")
    func threeLinkChainEndingAtAnArrayGetsKinds() {
        let owner = PlaylistOwner()
        owner.shelf.playlist = Self.playlist()
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(owner, keyPath: \.shelf.playlist.songs, options: [.old, .new]) {
            _,
            _,
            change in recorder.append(change)
        }
        Self.mutateSongs(of: owner.shelf.playlist)
        #expect(recorder.changes == Self.songRecords(\PlaylistOwner.shelf.playlist.songs) { $0 })
    }

    @Test("A string chain ending at an array gets kinds: \"next.songs\"")
    func stringChainEndingAtAnArrayGetsKinds() throws {
        let shelf = PlaylistShelf()
        shelf.next = Self.playlist()
        let observer = TestObserver()
        let records = Recorder<Any>()
        try observer.kvoController.observe(shelf, keyPath: "next.songs", options: [.old, .new]) { _, _, change in
            records.append(change)
        }
        Self.mutateSongs(of: shelf.next!)
        #expect(allMatch(records.changes, Self.songRecords(\PlaylistShelf.[kvoKeyPath: "next.songs"]) { $0 }))
    }

    @Test("Tokens of an array get kinds, directly and through a chain")
    func tokensGetKinds() throws {
        let shelf = PlaylistShelf()
        shelf.next = Self.playlist()
        let direct = Recorder<[String]>()
        let chained = Recorder<[String]?>()
        let directToken = try shelf.next!.observe(\.songs, options: [.old, .new]) { _, change in
            direct.append(change)
        }
        let chainToken = try shelf.observe(\.next?.songs, options: [.old, .new]) { _, change in
            chained.append(change)
        }
        Self.mutateSongs(of: shelf.next!)
        #expect(direct.changes == Self.songRecords(\Playlist.songs) { $0 })
        #expect(chained.changes == Self.songRecords(\PlaylistShelf.next?.songs) { Optional($0) })
        directToken.invalidate()
        chainToken.invalidate()
    }

    @Test("The keyPaths: block form gets kinds, directly and through a chain")
    func partialKeyPathFormGetsKinds() {
        let shelf = PlaylistShelf()
        shelf.next = Self.playlist()
        let observer = TestObserver()
        let direct = Recorder<Any>()
        let chained = Recorder<Any>()
        observer.kvoController.observe(shelf.next, keyPaths: [\.songs], options: [.old, .new]) { _, _, change in
            direct.append(change)
        }
        observer.kvoController.observe(shelf, keyPaths: [\.next?.songs], options: [.old, .new]) { _, _, change in
            chained.append(change)
        }
        Self.mutateSongs(of: shelf.next!)
        #expect(allMatch(direct.changes, Self.songRecords(\Playlist.songs) { $0 }))
        #expect(allMatch(chained.changes, Self.songRecords(\PlaylistShelf.next?.songs) { $0 }))
    }

    @Test("The delegate form with a context gets kinds, directly and through a chain")
    func delegateFormGetsKinds() {
        let shelf = PlaylistShelf()
        shelf.next = Self.playlist()
        let observer = ContextObserver()
        let context = UnsafeMutableRawPointer(bitPattern: 0x50_4E47)
        observer.kvoController.observe(shelf.next, keyPaths: [\.songs], options: [.old, .new], context: context)
        observer.kvoController.observe(shelf, keyPaths: [\.next?.songs], options: [.old, .new], context: context)
        Self.mutateSongs(of: shelf.next!)
        let deliveries = observer.deliveries
        let direct = deliveries.filter { $0.object == ObjectIdentifier(shelf.next!) }
        let chained = deliveries.filter { $0.object == ObjectIdentifier(shelf) }
        #expect(deliveries.count == 10)
        #expect(allMatch(direct.map(\.change), Self.songRecords(\Playlist.songs) { $0 }))
        #expect(allMatch(chained.map(\.change), Self.songRecords(\PlaylistShelf.next?.songs) { $0 }))
        #expect(direct.allSatisfy { $0.keyPath == \Playlist.songs && $0.context == context })
        #expect(chained.allSatisfy { $0.keyPath == \PlaylistShelf.next?.songs && $0.context == context })
    }

    @Test("Prior records of a string key path and of a chain carry the kind, the indexes and the elements about to go")
    func priorRecordsOfStringKeyPathsAndChains() throws {
        let shelf = PlaylistShelf()
        shelf.next = Self.playlist()
        let observer = TestObserver()
        let strings = Recorder<Any>()
        let chained = Recorder<[String]?>()
        try observer.kvoController.observe(shelf.next, keyPath: "songs", options: [.old, .new, .prior]) {
            _,
            _,
            change in strings.append(change)
        }
        observer.kvoController.observe(shelf, keyPath: \.next?.songs, options: [.old, .new, .prior]) {
            _,
            _,
            change in chained.append(change)
        }
        let songs = shelf.next!.mutableArrayValue(for: \.songs)
        _ = songs.remove(at: 2)
        songs.append("d")
        songs[0] = "A"
        func expected<Value>(_ keyPath: AnyKeyPath, _ wrap: ([String]) -> Value) -> [KVOChange<Value>] {
            [
                change(keyPath, kind: .removal, old: wrap(["c"]), indexes: IndexSet(integer: 2), prior: true),
                change(keyPath, kind: .removal, old: wrap(["c"]), indexes: IndexSet(integer: 2)),
                change(keyPath, kind: .insertion, indexes: IndexSet(integer: 2), prior: true),
                change(keyPath, kind: .insertion, new: wrap(["d"]), indexes: IndexSet(integer: 2)),
                change(keyPath, kind: .replacement, old: wrap(["a"]), indexes: IndexSet(integer: 0), prior: true),
                change(keyPath, kind: .replacement, old: wrap(["a"]), new: wrap(["A"]), indexes: IndexSet(integer: 0)),
            ]
        }
        #expect(allMatch(strings.changes, expected(\Playlist.[kvoKeyPath: "songs"]) { $0 }))
        #expect(chained.changes == expected(\PlaylistShelf.next?.songs) { Optional($0) })
    }

    @Test("Without .old and .new, a string key path and a chain get only the kind and the indexes")
    func withoutOldAndNewOnlyKindAndIndexesArrive() throws {
        let shelf = PlaylistShelf()
        shelf.next = Self.playlist()
        // Two observers: one controller would take the string and typed forms for one registration.
        let observer = TestObserver()
        let stringObserver = TestObserver()
        let strings = Recorder<Any>()
        let chained = Recorder<[String]?>()
        try stringObserver.kvoController.observe(shelf, keyPath: "next.songs", options: []) { _, _, change in
            strings.append(change)
        }
        observer.kvoController.observe(shelf, keyPath: \.next?.songs, options: []) { _, _, change in
            chained.append(change)
        }
        shelf.next!.mutableArrayValue(for: \.songs).append("d")
        #expect(
            allMatch(
                strings.changes,
                [
                    change(\PlaylistShelf.[kvoKeyPath: "next.songs"], kind: .insertion, indexes: IndexSet(integer: 3))
                        as KVOChange<[String]>
                ]
            )
        )
        #expect(
            chained.changes == [change(\PlaylistShelf.next?.songs, kind: .insertion, indexes: IndexSet(integer: 3))]
        )
        withExtendedLifetime(stringObserver) {}
    }

    @Test("One mutation: kinds for registrations of the array, settings for values computed from it")
    func kindsForTheCollectionSettingsForWhatIsComputedFromIt() throws {
        let shelf = PlaylistShelf()
        shelf.next = Self.playlist()
        let playlist = shelf.next!
        // One observer per registration: a controller takes the string and typed forms of a key path
        // for one registration.
        let observers = (0..<6).map { TestObserver(name: "observer \($0)") }
        let typed = Recorder<[String]>()
        let strings = Recorder<Any>()
        let chained = Recorder<[String]?>()
        let songCounts = Recorder<Int>()
        let counts = Recorder<Int>()
        let chainedCounts = Recorder<Int?>()
        observers[0].kvoController.observe(playlist, keyPath: \.songs, options: [.old, .new]) { _, _, change in
            typed.append(change)
        }
        try observers[1].kvoController.observe(playlist, keyPath: "songs", options: [.old, .new]) { _, _, change in
            strings.append(change)
        }
        observers[2].kvoController.observe(shelf, keyPath: \.next?.songs, options: [.old, .new]) { _, _, change in
            chained.append(change)
        }
        observers[3].kvoController.observe(playlist, keyPath: \.songCount, options: [.old, .new]) { _, _, change in
            songCounts.append(change)
        }
        observers[4].kvoController.observe(playlist, keyPath: \.songs.count, options: [.old, .new]) { _, _, change in
            counts.append(change)
        }
        observers[5].kvoController.observe(shelf, keyPath: \.next?.songCount, options: [.old, .new]) {
            _,
            _,
            change in chainedCounts.append(change)
        }
        playlist.mutableArrayValue(for: \.songs).append("d")
        let indexes = IndexSet(integer: 3)
        #expect(typed.changes == [change(\Playlist.songs, kind: .insertion, new: ["d"], indexes: indexes)])
        #expect(
            allMatch(
                strings.changes,
                [change(\Playlist.[kvoKeyPath: "songs"], kind: .insertion, new: ["d"], indexes: indexes)]
            )
        )
        #expect(
            chained.changes == [change(\PlaylistShelf.next?.songs, kind: .insertion, new: ["d"], indexes: indexes)]
        )
        #expect(songCounts.changes == [change(\Playlist.songCount, old: 3, new: 4)])
        #expect(counts.changes == [change(\Playlist.songs.count, old: 3, new: 4)])
        #expect(chainedCounts.changes == [change(\PlaylistShelf.next?.songCount, old: 3, new: 4)])
        withExtendedLifetime(observers) {}
    }

    @Test("A value stream of a chain ending at an array gets whole arrays; a change stream gets kinds")
    func streamsOfAChainEndingAtAnArray() async throws {
        let shelf = PlaylistShelf()
        shelf.next = Self.playlist()
        let values = try shelf.values(for: \.next?.songs)
        let changes = try shelf.changes(for: \.next?.songs, options: [.old, .new])
        let songs = shelf.next!.mutableArrayValue(for: \.songs)
        songs.append("d")
        _ = songs.remove(at: 0)
        var valueIterator = values.makeAsyncIterator()
        #expect(await valueIterator.next() == ["a", "b", "c"])
        #expect(await valueIterator.next() == ["a", "b", "c", "d"])
        #expect(await valueIterator.next() == ["b", "c", "d"])
        var changeIterator = changes.makeAsyncIterator()
        let keyPath: AnyKeyPath = \PlaylistShelf.next?.songs
        #expect(
            await changeIterator.next()
                == change(keyPath, kind: .insertion, new: Optional(["d"]), indexes: IndexSet(integer: 3))
        )
        #expect(
            await changeIterator.next()
                == change(keyPath, kind: .removal, old: Optional(["a"]), indexes: IndexSet(integer: 0))
        )
    }

    @Test("After the chain's link is replaced, only the new playlist's mutations arrive, with kinds")
    func replacingTheLinkMovesKindsToTheNewCollection() throws {
        let shelf = PlaylistShelf()
        let first = Self.playlist()
        shelf.next = first
        let observer = TestObserver()
        let stringObserver = TestObserver()
        let chained = Recorder<[String]?>()
        let strings = Recorder<Any>()
        observer.kvoController.observe(shelf, keyPath: \.next?.songs, options: [.old, .new]) { _, _, change in
            chained.append(change)
        }
        try stringObserver.kvoController.observe(shelf, keyPath: "next.songs", options: [.old, .new]) {
            _,
            _,
            change in strings.append(change)
        }
        let second = Playlist()
        second.songs = ["x"]
        shelf.next = second
        first.mutableArrayValue(for: \.songs).append("ignored")
        second.mutableArrayValue(for: \.songs).insert("w", at: 0)
        second.mutableArrayValue(for: \.songs).remove(at: IndexSet(integer: 1))
        func expected<Value>(_ keyPath: AnyKeyPath, _ wrap: ([String]) -> Value) -> [KVOChange<Value>] {
            [
                change(keyPath, old: wrap(["a", "b", "c"]), new: wrap(["x"])),
                change(keyPath, kind: .insertion, new: wrap(["w"]), indexes: IndexSet(integer: 0)),
                change(keyPath, kind: .removal, old: wrap(["x"]), indexes: IndexSet(integer: 1)),
            ]
        }
        #expect(chained.changes == expected(\PlaylistShelf.next?.songs) { Optional($0) })
        #expect(allMatch(strings.changes, expected(\PlaylistShelf.[kvoKeyPath: "next.songs"]) { $0 }))
        #expect(first.kvoRegistrar.subscriptionCount == 0)
        withExtendedLifetime(stringObserver) {}
    }

    // MARK: Sets

    @Test("A string key path of a set gets the proxy's kind for each set mutation")
    func stringKeyPathOfASetGetsKinds() throws {
        let playlist = Self.playlist()
        let observer = TestObserver()
        let records = Recorder<Any>()
        try observer.kvoController.observe(playlist, keyPath: "tags", options: [.old, .new]) { _, _, change in
            records.append(change)
        }
        Self.mutateTags(of: playlist)
        #expect(allMatch(records.changes, Self.tagRecords(\Playlist.[kvoKeyPath: "tags"]) { $0 }))
        #expect(playlist.tags.isEmpty)
    }

    @Test("A chain ending at a set gets the proxy's kinds, in typed and string form")
    func chainEndingAtASetGetsKinds() throws {
        let shelf = PlaylistShelf()
        shelf.next = Self.playlist()
        let observer = TestObserver()
        let stringObserver = TestObserver()
        let chained = Recorder<Set<String>?>()
        let strings = Recorder<Any>()
        observer.kvoController.observe(shelf, keyPath: \.next?.tags, options: [.old, .new]) { _, _, change in
            chained.append(change)
        }
        try stringObserver.kvoController.observe(shelf, keyPath: "next.tags", options: [.old, .new]) {
            _,
            _,
            change in strings.append(change)
        }
        Self.mutateTags(of: shelf.next!)
        #expect(chained.changes == Self.tagRecords(\PlaylistShelf.next?.tags) { Optional($0) })
        #expect(allMatch(strings.changes, Self.tagRecords(\PlaylistShelf.[kvoKeyPath: "next.tags"]) { $0 }))
        withExtendedLifetime(stringObserver) {}
    }

    @Test("A token of a set through a chain gets kinds, and a prior record carries the members about to go")
    func tokenOfASetThroughAChainGetsKindsAndPriorRecords() throws {
        let shelf = PlaylistShelf()
        shelf.next = Self.playlist()
        let recorder = Recorder<Set<String>?>()
        let token = try shelf.observe(\.next?.tags, options: [.old, .new, .prior]) { _, change in
            recorder.append(change)
        }
        let tags = shelf.next!.mutableSetValue(for: \.tags)
        tags.insert("jazz")
        tags.subtract(["rock", "pop"])
        let keyPath: AnyKeyPath = \PlaylistShelf.next?.tags
        #expect(
            recorder.changes == [
                change(keyPath, kind: .insertion, prior: true),
                change(keyPath, kind: .insertion, new: Optional(["jazz"])),
                change(keyPath, kind: .removal, old: Optional(["rock"]), prior: true),
                change(keyPath, kind: .removal, old: Optional(["rock"])),
            ]
        )
        token.invalidate()
    }

    @Test("Values computed from a set get a setting through a chain: \\.next?.tags.count")
    func countOfASetThroughAChainGetsASetting() {
        let shelf = PlaylistShelf()
        shelf.next = Self.playlist()
        let observer = TestObserver()
        let recorder = Recorder<Int?>()
        observer.kvoController.observe(shelf, keyPath: \.next?.tags.count, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        shelf.next!.mutableSetValue(for: \.tags).formUnion(["jazz", "blues"])
        #expect(recorder.changes == [change(\PlaylistShelf.next?.tags.count, old: 1, new: 3)])
    }

    // MARK: Helpers

    /// A playlist with songs `["a", "b", "c"]` and tags `["rock"]`.
    private static func playlist() -> Playlist {
        let playlist = Playlist()
        playlist.songs = ["a", "b", "c"]
        playlist.tags = ["rock"]
        return playlist
    }

    /// Five array mutations through the proxy: `["a", "b", "c"]` becomes `["A", "c"]` (see `songRecords`).
    private static func mutateSongs(of playlist: Playlist) {
        let songs = playlist.mutableArrayValue(for: \.songs)
        songs.append("d")  // a b c d
        songs.insert("x", at: 0)  // x a b c d
        _ = songs.remove(at: 2)  // x a c d
        songs[1] = "A"  // x A c d
        songs.remove(at: IndexSet([0, 3]))  // A c
    }

    /// What a registration of the array gets for `mutateSongs` with `[.old, .new]`: Cocoa's records.
    private static func songRecords<Value>(
        _ keyPath: AnyKeyPath,
        _ wrap: ([String]) -> Value
    ) -> [KVOChange<Value>] {
        [
            change(keyPath, kind: .insertion, new: wrap(["d"]), indexes: IndexSet(integer: 3)),
            change(keyPath, kind: .insertion, new: wrap(["x"]), indexes: IndexSet(integer: 0)),
            change(keyPath, kind: .removal, old: wrap(["b"]), indexes: IndexSet(integer: 2)),
            change(keyPath, kind: .replacement, old: wrap(["a"]), new: wrap(["A"]), indexes: IndexSet(integer: 1)),
            change(keyPath, kind: .removal, old: wrap(["x", "d"]), indexes: IndexSet([0, 3])),
        ]
    }

    /// Every mutation `KVOMutableSet` offers: `["rock"]` becomes empty (see `tagRecords`).
    private static func mutateTags(of playlist: Playlist) {
        let tags = playlist.mutableSetValue(for: \.tags)
        tags.insert("jazz")  // rock jazz
        tags.formUnion(["jazz", "blues"])  // rock jazz blues
        tags.remove("rock")  // jazz blues
        tags.subtract(["blues", "pop"])  // jazz
        tags.formUnion(["folk", "soul"])  // jazz folk soul
        tags.formIntersection(["folk", "pop"])  // folk
        tags.removeAll()  // (empty)
    }

    /// What a registration of the set gets for `mutateTags` with `[.old, .new]`: the members actually
    /// added (`.insertion`) or removed (`.removal`), no indexes.
    private static func tagRecords<Value>(
        _ keyPath: AnyKeyPath,
        _ wrap: (Set<String>) -> Value
    ) -> [KVOChange<Value>] {
        [
            change(keyPath, kind: .insertion, new: wrap(["jazz"])),
            change(keyPath, kind: .insertion, new: wrap(["blues"])),
            change(keyPath, kind: .removal, old: wrap(["rock"])),
            change(keyPath, kind: .removal, old: wrap(["blues"])),
            change(keyPath, kind: .insertion, new: wrap(["folk", "soul"])),
            change(keyPath, kind: .removal, old: wrap(["jazz", "soul"])),
            change(keyPath, kind: .removal, old: wrap(["folk"])),
        ]
    }
}
