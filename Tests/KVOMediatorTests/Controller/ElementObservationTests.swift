import Foundation
import KVOMediator
import Testing

@testable import KVOMediator

/// `observe(_:each:keyPath:…)`: a property of every element of a collection, elements subscribed as they
/// join and unsubscribed as they leave; exact records of the values.
@Suite struct ElementObservationTests {
    private func setting(_ old: [String]?, _ new: [String]?, at indexes: IndexSet? = nil) -> KVOChange<[String]> {
        KVOChange(kind: .setting, oldValue: old, newValue: new, indexes: indexes, keyPath: \Album.tracks)
    }

    private func record(
        _ kind: KVOChangeKind,
        _ old: [String]?,
        _ new: [String]?,
        at indexes: IndexSet?
    )
        -> KVOChange<[String]>
    {
        KVOChange(kind: kind, oldValue: old, newValue: new, indexes: indexes, keyPath: \Album.tracks)
    }

    @Test func theIssuesAcceptanceInsertThenChangeThenRemove() {
        let album = Album(["a", "b"])
        let observer = TestObserver()
        let records = Recorder<[String]>()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: [.old, .new]) {
            _,
            _,
            change in records.append(change)
        }
        album.mutableArrayValue(for: \.tracks).insert(Track("z"), at: 0)
        #expect(records.changes == [record(.insertion, nil, ["z"], at: IndexSet(integer: 0))])
        album.tracks[1].title = "A"
        album.tracks[2].title = "B"
        #expect(
            records.changes.dropFirst() == [
                setting(["a"], ["A"], at: IndexSet(integer: 1)), setting(["b"], ["B"], at: IndexSet(integer: 2)),
            ]
        )
        let removed = album.mutableArrayValue(for: \.tracks).remove(at: 1)
        #expect(records.changes.last == record(.removal, ["A"], nil, at: IndexSet(integer: 1)))
        let count = records.count
        removed.title = "gone"
        #expect(records.count == count)
        #expect(removed.kvoRegistrar.registrationCount == 0)
    }

    @Test func aRemovedElementIsReleasedAndSilentAfterManyCycles() {
        let album = Album(["a"])
        let observer = TestObserver()
        let records = CallCounter()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title) { _, _, _ in records.increment() }
        weak var last: Track?
        let proxy = album.mutableArrayValue(for: \.tracks)
        for cycle in 0..<10_000 {
            let song = Track("s\(cycle)")
            last = song
            proxy.insert(song, at: 0)
            _ = proxy.remove(at: 0)
        }
        #expect(last == nil)
        #expect(records.count == 20_000)
        album.tracks[0].title = "A"
        #expect(records.count == 20_001)
    }

    @Test func aWholeSetReplacesTheElementsObserved() {
        let album = Album(["a", "b"])
        let old = album.tracks
        let observer = TestObserver()
        let records = Recorder<[String]>()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: [.old, .new]) {
            _,
            _,
            change in records.append(change)
        }
        album.tracks = [Track("c")]
        old[0].title = "A"
        album.tracks[0].title = "C"
        #expect(records.changes == [setting(["a", "b"], ["c"]), setting(["c"], ["C"], at: IndexSet(integer: 0))])
    }

    @Test func anElementHeldTwiceChangesAtBothIndexesAndStaysObservedUntilBothLeave() {
        let song = Track("x")
        let album = Album()
        album.tracks = [song, Track("y"), song]
        let observer = TestObserver()
        let records = Recorder<[String]>()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: [.old, .new]) {
            _,
            _,
            change in records.append(change)
        }
        song.title = "X"
        #expect(records.changes == [setting(["x", "x"], ["X", "X"], at: IndexSet([0, 2]))])
        _ = album.mutableArrayValue(for: \.tracks).remove(at: 0)
        song.title = "X2"
        #expect(records.changes.last == setting(["X"], ["X2"], at: IndexSet(integer: 1)))
        _ = album.mutableArrayValue(for: \.tracks).remove(at: 1)
        let count = records.count
        song.title = "X3"
        #expect(records.count == count)
    }

    @Test func aReplacementThroughTheProxyGivesBothValues() {
        let album = Album(["a", "b"])
        let observer = TestObserver()
        let records = Recorder<[String]>()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: [.old, .new]) {
            _,
            _,
            change in records.append(change)
        }
        let old = album.tracks[1]
        album.mutableArrayValue(for: \.tracks).replace(at: 1, with: Track("c"))
        old.title = "B"
        album.tracks[1].title = "C"
        #expect(
            records.changes == [
                record(.replacement, ["b"], ["c"], at: IndexSet(integer: 1)),
                setting(["c"], ["C"], at: IndexSet(integer: 1)),
            ]
        )
    }

    @Test func initialAndPriorRecordsCarryTheValues() {
        let album = Album(["a", "b"])
        let observer = TestObserver()
        let records = Recorder<[String]>()
        observer.kvoController.observe(
            album,
            each: \.tracks,
            keyPath: \.title,
            options: [.initial, .old, .new, .prior]
        ) { _, _, change in records.append(change) }
        album.tracks[1].title = "B"
        _ = album.mutableArrayValue(for: \.tracks).remove(at: 0)
        #expect(
            records.changes == [
                setting(nil, ["a", "b"]),
                KVOChange(oldValue: ["b"], indexes: IndexSet(integer: 1), isPrior: true, keyPath: \Album.tracks),
                setting(["b"], ["B"], at: IndexSet(integer: 1)),
                KVOChange(
                    kind: .removal,
                    oldValue: ["a"],
                    indexes: IndexSet(integer: 0),
                    isPrior: true,
                    keyPath: \Album.tracks
                ),
                record(.removal, ["a"], nil, at: IndexSet(integer: 0)),
            ]
        )
    }

    @Test func aSetsMembersAreObservedWithoutIndexes() {
        let album = Album()
        let observer = TestObserver()
        let records = Recorder<[String]>()
        observer.kvoController.observe(album, each: \.favourites, keyPath: \.title, options: [.old, .new]) {
            _,
            _,
            change in records.append(change)
        }
        let song = Track("a")
        album.mutableSetValue(for: \.favourites).insert(song)
        song.title = "A"
        album.mutableSetValue(for: \.favourites).remove(song)
        song.title = "gone"
        let keyPath = \Album.favourites
        #expect(
            records.changes == [
                KVOChange(kind: .insertion, newValue: ["a"], keyPath: keyPath),
                KVOChange(oldValue: ["a"], newValue: ["A"], keyPath: keyPath),
                KVOChange(kind: .removal, oldValue: ["A"], keyPath: keyPath),
            ]
        )
    }

    @Test func aTokenEndsEveryElementsRegistrationWhenReleased() throws {
        let album = Album(["a", "b"])
        let tracks = album.tracks
        let records = Recorder<[String]>()
        var token: KVOObservation? = try album.observe(each: \.tracks, keyPath: \.title, options: [.new]) {
            _,
            change in records.append(change)
        }
        tracks[0].title = "A"
        #expect(records.changes == [setting(nil, ["A"], at: IndexSet(integer: 0))])
        #expect(tracks.allSatisfy { $0.kvoRegistrar.registrationCount == 1 })
        token?.invalidate()
        tracks[1].title = "B"
        #expect(records.count == 1)
        #expect(tracks.allSatisfy { $0.kvoRegistrar.registrationCount == 0 })
        #expect(album.kvoRegistrar.registrationCount == 0)
        token = nil
    }

    @Test func theControllerEndsItOnUnobserveAndObservingTwiceIsIgnored() {
        let album = Album(["a"])
        let song = album.tracks[0]
        var observer: TestObserver? = TestObserver()
        let records = CallCounter()
        for _ in 0..<2 {
            observer?.kvoController.observe(album, each: \.tracks, keyPath: \.title) { _, _, _ in records.increment() }
        }
        song.title = "A"
        #expect(records.count == 1)
        observer?.kvoController.unobserve(album)
        song.title = "B"
        #expect(records.count == 1)
        #expect(song.kvoRegistrar.registrationCount == 0)
        observer?.kvoController.observe(album, each: \.tracks, keyPath: \.title) { _, _, _ in records.increment() }
        #expect(song.kvoRegistrar.registrationCount == 1)
        observer = nil
        song.title = "C"
        #expect(records.count == 1)
        #expect(song.kvoRegistrar.registrationCount == 0)
        #expect(album.kvoRegistrar.registrationCount == 0)
    }

    #if DEBUG
    @Test func debugBuildsReportASecondElementWiseObserveMadeElsewhereNamingBothPlaces() throws {
        let album = Album(["a"])
        let observer = TestObserver()
        let log = ErrorLog()
        observer.kvoController.errorHandler = { log.append($0) }
        let second = CallCounter()
        let firstLine = #line + 1
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title) { _, _, _ in }
        let work = DispatchQueue(label: "KVOMediatorTests.elementsIgnored")
        let secondLine = #line + 1
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, delivery: .queue(work)) { _, _ in
            second.increment()
        }
        album.tracks[0].title = "A"
        work.sync {}
        #expect(second.count == 0)
        let error = try #require(log.errors.only)
        #expect(error.reason == .alreadyObserved)
        #expect(error.keyPath == "each of tracks: title")
        #expect(error.typeName == "Album")
        let file = "KVOMediatorTests/ElementObservationTests.swift"
        #expect(
            error.message
                == "KVOMediator: the observe of each of tracks: title of Album at \(file):\(secondLine) was ignored, "
                + "with its options and callback: this KVOController<TestObserver> observes that key path of the "
                + "elements of that collection already (made at \(file):\(firstLine)), and a controller keeps one "
                + "observation per collection and key path. To replace it, call unobserve(_:each:keyPath:) first; to "
                + "have both, observe from another controller, or with a token "
                + "(object.observe(each:keyPath:options:changeHandler:))."
        )
    }

    @Test func theSameElementWiseObserveMadeAgainOrOfAnotherKeyPathIsNotReported() {
        let album = Album(["a"])
        let other = Album(["b"])
        let observer = TestObserver()
        let log = ErrorLog()
        observer.kvoController.errorHandler = { log.append($0) }
        for object in [album, album, other, album] {
            observer.kvoController.observe(object, each: \.tracks, keyPath: \.title) { _, _, _ in }
        }
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.tags) { _, _, _ in }
        observer.kvoController.unobserve(album, each: \.tracks, keyPath: \.title)
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title) { _, _, _ in }
        #expect(log.errors.isEmpty)
        #expect(album.tracks[0].kvoRegistrar.registrationCount == 2)
    }
    #endif

    @Test func settingTheWholeArrayKeepsObservingTheElementsThatStay() {
        let album = Album(["a", "b"])
        let kept = album.tracks[1]
        let observer = TestObserver()
        let records = Recorder<[String]>()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: [.new]) { _, _, change in
            records.append(change)
        }
        album.tracks.append(Track("c"))  // a set of the whole array
        album.tracks.removeFirst()
        #expect(kept.kvoRegistrar.registrationCount == 1)
        kept.title = "B"
        #expect(
            records.changes == [
                setting(nil, ["a", "b", "c"]), setting(nil, ["b", "c"]), setting(nil, ["B"], at: IndexSet(integer: 0)),
            ]
        )
    }

    @Test func aCollectionTypedPropertyOfAnElementComesWhole() {
        let album = Album(["a"])
        let observer = TestObserver()
        let records = Recorder<[[String]]>()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.tags, options: [.old, .new]) { _, _, change in
            records.append(change)
        }
        album.tracks[0].mutableArrayValue(for: \.tags).append("live")
        #expect(
            records.changes == [
                KVOChange(oldValue: [[]], newValue: [["live"]], indexes: IndexSet(integer: 0), keyPath: \Album.tracks)
            ]
        )
    }

    @Test func aStreamYieldsEachRecordAndFinishesWhenTheObjectGoes() async throws {
        var album: Album? = Album(["a"])
        let track = album!.tracks[0]
        var iterator = try album!.changes(forEach: \.tracks, keyPath: \.title, options: [.initial, .new])
            .makeAsyncIterator()
        #expect(await iterator.next() == setting(nil, ["a"]))
        track.title = "A"
        #expect(await iterator.next() == setting(nil, ["A"], at: IndexSet(integer: 0)))
        album!.mutableArrayValue(for: \.tracks).append(Track("b"))
        #expect(await iterator.next() == record(.insertion, nil, ["b"], at: IndexSet(integer: 1)))
        album = nil
        #expect(await iterator.next() == nil)
        #expect(track.kvoRegistrar.registrationCount == 0)
    }

    @Test func aStreamOfASetsMembersHasNoIndexes() async throws {
        let album = Album()
        let track = Track("a")
        var iterator = try album.changes(forEach: \.favourites, keyPath: \.title, options: [.new]).makeAsyncIterator()
        album.mutableSetValue(for: \.favourites).insert(track)
        track.title = "A"
        #expect(await iterator.next() == KVOChange(kind: .insertion, newValue: ["a"], keyPath: \Album.favourites))
        #expect(await iterator.next() == KVOChange(newValue: ["A"], keyPath: \Album.favourites))
    }

    @Test func debugDescriptionListsItWithWhereItWasMade() {
        let album = Album(["a"])
        let observer = TestObserver()
        let line = #line + 1
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title) { _, _, _ in }
        // (An empty set: no element's registration names the elements' key path yet.)
        observer.kvoController.observe(album, each: \.favourites, keyPath: \.title) { _, _, _ in }
        let file = "KVOMediatorTests/ElementObservationTests.swift"
        let text = observer.kvoController.debugDescription
        #expect(text.contains("  <Album: 0x"))
        #expect(text.contains("    each of tracks: title  // \(file):\(line), each element"))
        #expect(text.contains("    each of favourites: <property of Track>  // \(file):\(line + 2), each element"))
        album.mutableSetValue(for: \.favourites).insert(Track("f"))
        #expect(observer.kvoController.debugDescription.contains("    each of favourites: title  // "))
    }

    @Test func elementsChangedOnOtherThreadsWhileMembersComeAndGoGetValidIndexes() {
        let album = Album((0..<20).map { "s\($0)" })
        let stable = album.tracks[0]
        let observer = TestObserver()
        let bad = CallCounter()
        let seen = CallCounter()
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: [.new]) { _, _, change in
            guard change.kind == .setting, let indexes = change.indexes else { return }
            seen.increment()
            if indexes.count != change.newValue?.count { bad.increment() }
        }
        let writer = TestThread {
            for value in 0..<2_000 { stable.title = "t\(value)" }
        }
        let proxy = album.mutableArrayValue(for: \.tracks)
        for _ in 0..<500 {
            proxy.insert(Track("n"), at: 1)
            _ = proxy.remove(at: 1)
        }
        writer.join()
        #expect(bad.count == 0)
        #expect(seen.count == 2_000)
    }
}
