import Foundation
import KVOMediator
import Testing

/// Observations of elements through a controller: ended one by one, counted, and `.distinct`.
@Suite struct ElementObservationEndingTests {
    @Test func unobserveEachEndsOnlyThatObservation() {
        let album = Album(["a"])
        let song = album.tracks[0]
        let observer = TestObserver()
        let titles = CallCounter()
        let tags = CallCounter()
        let whole = CallCounter()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title) { _, _, _ in titles.increment() }
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.tags) { _, _, _ in tags.increment() }
        observer.kvoController.observe(album, keyPath: \.tracks) { _, _, _ in whole.increment() }
        #expect(observer.kvoController.observationCount == 3)

        observer.kvoController.unobserve(album, each: \.tracks, keyPath: \.title)
        #expect(observer.kvoController.observationCount == 2)
        song.title = "A"
        song.tags = ["x"]
        album.mutableArrayValue(for: \.tracks).append(Track("b"))
        #expect(titles.count == 0)
        #expect(tags.count == 2)
        #expect(whole.count == 1)
        #expect(song.kvoRegistrar.registrationCount == 1)  // the tags' observation only

        // Unobserving what is not observed, or a nil object, ends nothing.
        observer.kvoController.unobserve(album, each: \.tracks, keyPath: \.title)
        observer.kvoController.unobserve(nil as Album?, each: \.tracks, keyPath: \.tags)
        #expect(observer.kvoController.observationCount == 2)
    }

    @Test func unobserveEachOfASetEndsItAndItCanBeMadeAgain() {
        let album = Album()
        let song = Track("a")
        album.favourites = [song]
        let observer = TestObserver()
        let records = CallCounter()
        observer.kvoController.observe(album, each: \.favourites, keyPath: \.title) { _, _, _ in records.increment() }
        observer.kvoController.unobserve(album, each: \.favourites, keyPath: \.title)
        song.title = "A"
        #expect(records.count == 0)
        #expect(song.kvoRegistrar.registrationCount == 0)
        #expect(album.kvoRegistrar.registrationCount == 0)
        #expect(observer.kvoController.observationCount == 0)

        observer.kvoController.observe(album, each: \.favourites, keyPath: \.title) { _, _, _ in records.increment() }
        song.title = "B"
        #expect(records.count == 1)
    }

    @Test func theCountDropsWhenTheObservedObjectGoes() {
        let observer = TestObserver()
        weak var gone: Album?
        do {
            let album = Album(["a"])
            gone = album
            observer.kvoController.observe(album, each: \.tracks, keyPath: \.title) { _, _, _ in }
            #expect(observer.kvoController.observationCount == 1)
        }
        #expect(gone == nil)
        #expect(observer.kvoController.observationCount == 0)
    }

    @Test func theElementsRegistrationsEndWhenTheObservedObjectGoesInEveryForm() throws {
        let song = Track("a")
        let observer = TestObserver()
        let records = CallCounter()
        var token: KVOObservation?
        do {
            let album = Album()
            album.tracks = [song]
            observer.kvoController.observe(album, each: \.tracks, keyPath: \.title) { _, _, _ in records.increment() }
            token = try album.observe(each: \.tracks, keyPath: \.title) { _, _ in records.increment() }
            #expect(song.kvoRegistrar.registrationCount == 2)
        }
        // The album is gone; the token and the controller are not.
        #expect(song.kvoRegistrar.registrationCount == 0)
        #expect(token?.isValid == false)
        #expect(observer.kvoController.observationCount == 0)
        song.title = "A"
        #expect(records.count == 0)
        withExtendedLifetime(token) {}
    }

    @Test func distinctSkipsAnEqualElementValueButNoChangeOfTheMembers() {
        let album = Album(["a", "b"])
        let observer = TestObserver()
        let records = Recorder<[String]>()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: [.old, .new, .distinct]) {
            _,
            _,
            change in records.append(change)
        }
        album.tracks[0].title = "a"  // the same value: nothing
        #expect(records.count == 0)

        album.tracks = [Track("a"), Track("b")]  // other members with the same values: delivered
        album.tracks[1].title = "B"
        album.mutableArrayValue(for: \.tracks).replace(at: 0, with: Track("a"))  // delivered
        #expect(
            records.changes == [
                KVOChange(kind: .setting, oldValue: ["a", "b"], newValue: ["a", "b"], keyPath: \Album.tracks),
                KVOChange(
                    kind: .setting,
                    oldValue: ["b"],
                    newValue: ["B"],
                    indexes: IndexSet(integer: 1),
                    keyPath: \Album.tracks
                ),
                KVOChange(
                    kind: .replacement,
                    oldValue: ["a"],
                    newValue: ["a"],
                    indexes: IndexSet(integer: 0),
                    keyPath: \Album.tracks
                ),
            ]
        )
    }

    @Test func distinctInATransactionKeepsAWholeSetWhoseLeavingMemberChangedAfterIt() {
        let album = Album(["a"])
        let leaving = album.tracks[0]
        let observer = TestObserver()
        let records = Recorder<[String]>()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: [.old, .new, .distinct]) {
            _,
            _,
            change in records.append(change)
        }
        withKVOTransaction {
            album.tracks = [Track("b")]
            leaving.title = "b"  // left already; the whole set's record reads it at the end
        }
        #expect(
            records.changes == [KVOChange(kind: .setting, oldValue: ["b"], newValue: ["b"], keyPath: \Album.tracks)]
        )
    }
}

/// Observations of elements in a transaction: one record per element changed and one for the collection,
/// when it ends, in the order of their first change; membership records read the values then.
@Suite struct ElementObservationTransactionTests {
    private typealias Records = Recorder<[String]>

    private func observe(_ album: Album, _ observer: TestObserver, options: KVOOptions = [.old, .new]) -> Records {
        let records = Recorder<[String]>()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: options) { _, _, change in
            records.append(change)
        }
        return records
    }

    @Test func elementChangesAndAnInsertionComeOnceEachWhenItEnds() {
        let album = Album(["a", "b"])
        let observer = TestObserver()
        let records = observe(album, observer, options: [.old, .new, .prior])
        withKVOTransaction {
            album.tracks[1].title = "B"
            album.tracks[1].title = "BB"
            let joining = Track("z")
            album.mutableArrayValue(for: \.tracks).append(joining)
            joining.title = "Z"  // joined in the transaction: its value at the end is the insertion's
            #expect(records.count == 0)
        }
        #expect(
            records.changes == [
                KVOChange(oldValue: ["b"], indexes: IndexSet(integer: 1), isPrior: true, keyPath: \Album.tracks),
                KVOChange(oldValue: ["b"], newValue: ["BB"], indexes: IndexSet(integer: 1), keyPath: \Album.tracks),
                KVOChange(kind: .insertion, indexes: IndexSet(integer: 2), isPrior: true, keyPath: \Album.tracks),
                KVOChange(kind: .insertion, newValue: ["Z"], indexes: IndexSet(integer: 2), keyPath: \Album.tracks),
            ]
        )
        album.tracks[2].title = "Zed"
        #expect(
            records.changes.last
                == KVOChange(oldValue: ["Z"], newValue: ["Zed"], indexes: IndexSet(integer: 2), keyPath: \Album.tracks)
        )
    }

    @Test func anElementThatLeavesInItIsSilentAfterwards() {
        let album = Album(["a", "b"])
        let leaving = album.tracks[0]
        let observer = TestObserver()
        let records = observe(album, observer)
        withKVOTransaction {
            _ = album.mutableArrayValue(for: \.tracks).remove(at: 0)
            leaving.title = "gone"  // left already: nothing of its own, and the removal reads it at the end
        }
        #expect(
            records.changes == [
                KVOChange(kind: .removal, oldValue: ["gone"], indexes: IndexSet(integer: 0), keyPath: \Album.tracks)
            ]
        )
        leaving.title = "later"
        #expect(records.count == 1)
        #expect(leaving.kvoRegistrar.registrationCount == 0)
    }
}

/// Observations of elements through a controller, re-entered from their own `.initial` callback.
@Suite struct ElementObservationReentrancyTests {
    @Test func observingTheSameAgainFromItsInitialCallbackIsIgnored() {
        let album = Album(["a"])
        let observer = TestObserver()
        let initials = CallCounter()
        let changes = CallCounter()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: [.initial, .new]) {
            observer,
            album,
            change in
            guard change.oldValue == nil, change.indexes == nil, change.newValue == ["a"] else {
                return changes.increment()
            }
            initials.increment()
            observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: [.initial]) { _, _, _ in
                initials.increment()
            }
        }
        #expect(initials.count == 1)
        #expect(observer.kvoController.observationCount == 1)
        album.tracks[0].title = "A"
        #expect(changes.count == 1)
    }

    @Test func unobservingFromItsInitialCallbackEndsItAndNoCallbackStartsAfter() {
        let album = Album(["a"])
        let song = album.tracks[0]
        let observer = TestObserver()
        let records = CallCounter()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: [.initial, .new]) {
            observer,
            album,
            _ in
            records.increment()
            guard records.count == 1 else { return }
            // (Inside `observe`: its registrations are live, and it has no token yet.)
            observer.kvoController.unobserve(album, each: \.tracks, keyPath: \.title)
            song.title = "A"
            album.mutableArrayValue(for: \.tracks).append(Track("b"))
        }
        #expect(records.count == 1)
        #expect(observer.kvoController.observationCount == 0)
        song.title = "B"
        #expect(records.count == 1)
        #expect(song.kvoRegistrar.registrationCount == 0)
        #expect(album.kvoRegistrar.registrationCount == 0)
    }

    @Test func aFailedObserveLeavesNothingKept() {
        let album = Album(["a"])
        let observer = TestObserver()
        let errors = CallCounter()
        observer.kvoController.errorHandler = { _ in errors.increment() }
        // `plainName` is no observable property: the element registration cannot be made.
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.plainName) { _, _, _ in }
        #expect(errors.count == 1)
        #expect(observer.kvoController.observationCount == 0)
        #expect(album.kvoRegistrar.registrationCount == 0)
    }
}
