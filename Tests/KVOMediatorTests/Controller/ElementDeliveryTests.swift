import Foundation
import Testing

@testable import KVOMediator

/// `observe(_:each:keyPath:…, delivery:)`: element-wise records delivered on a queue or the main actor, and
/// with `coalescing: .latest`, an element's changes merged between membership changes.
@Suite struct ElementDeliveryTests {
    private func record(
        _ kind: KVOChangeKind,
        _ old: [String]?,
        _ new: [String]?,
        at indexes: IndexSet?,
        prior: Bool = false
    ) -> KVOChange<[String]> {
        KVOChange(kind: kind, oldValue: old, newValue: new, indexes: indexes, isPrior: prior, keyPath: \Album.tracks)
    }

    private func setting(_ old: [String]?, _ new: [String]?, at index: Int, prior: Bool = false) -> KVOChange<[String]>
    {
        record(.setting, old, new, at: IndexSet(integer: index), prior: prior)
    }

    /// Records `album`'s titles element by element on `queue` (each record with whether it ran there).
    private func recordTitles(
        of album: Album,
        options: KVOOptions = [.old, .new],
        on queue: DispatchQueue,
        coalescing: Bool,
        by observer: TestObserver
    ) -> (records: Recorder<[String]>, onQueue: PlaceLog) {
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let records = Recorder<[String]>()
        let onQueue = PlaceLog()
        let delivery: KVOQueueDelivery = coalescing ? .queue(queue, coalescing: .latest) : .queue(queue)
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, options: options, delivery: delivery) {
            _,
            change in
            onQueue.append(DispatchQueue.getSpecific(key: key) == 7)
            records.append(change)
        }
        return (records, onQueue)
    }

    @Test func theIssuesAcceptanceRunsOnTheQueueInTheOrderOfTheChanges() {
        let album = Album(["a", "b"])
        let observer = TestObserver()
        let held = HeldQueue()
        let (records, onQueue) = recordTitles(of: album, on: held.queue, coalescing: false, by: observer)
        album.mutableArrayValue(for: \.tracks).insert(Track("z"), at: 0)
        album.tracks[2].title = "B"
        album.tracks[2].title = "BB"
        #expect(records.count == 0)
        held.releaseAndDrain()
        #expect(
            records.changes == [
                record(.insertion, nil, ["z"], at: IndexSet(integer: 0)), setting(["b"], ["B"], at: 2),
                setting(["B"], ["BB"], at: 2),
            ]
        )
        #expect(onQueue.values == [true, true, true])
    }

    @Test func coalescingMergesAnElementsChangesUntilAMembershipChange() {
        let album = Album(["a", "b"])
        let observer = TestObserver()
        let held = HeldQueue()
        let (records, _) = recordTitles(of: album, on: held.queue, coalescing: true, by: observer)
        let second = album.tracks[1]
        for step in 1...500 { second.title = "b\(step)" }
        album.tracks[0].title = "A"
        second.title = "b-last"
        album.mutableArrayValue(for: \.tracks).insert(Track("z"), at: 0)
        for step in 1...3 { second.title = "after\(step)" }
        held.releaseAndDrain()
        #expect(
            records.changes == [
                setting(["b"], ["b-last"], at: 1), setting(["a"], ["A"], at: 0),
                record(.insertion, nil, ["z"], at: IndexSet(integer: 0)), setting(["b-last"], ["after3"], at: 2),
            ]
        )
        // Once the delivery has run, the next change waits on its own.
        second.title = "next"
        held.queue.sync {}
        #expect(records.changes.last == setting(["after3"], ["next"], at: 2))
        #expect(records.count == 5)
    }

    @Test func coalescedRecordsCarryOnlyTheValuesAskedFor() {
        let album = Album(["a"])
        let observer = TestObserver()
        let held = HeldQueue()
        let (records, _) = recordTitles(of: album, options: [.new], on: held.queue, coalescing: true, by: observer)
        album.tracks[0].title = "x"
        album.tracks[0].title = "y"
        _ = album.mutableArrayValue(for: \.tracks).remove(at: 0)
        held.releaseAndDrain()
        #expect(records.changes == [setting(nil, ["y"], at: 0), record(.removal, nil, nil, at: IndexSet(integer: 0))])
    }

    @Test func aRemovedElementsLaterChangesDeliverNothingAndItIsReleased() {
        let album = Album(["a", "b"])
        let observer = TestObserver()
        let held = HeldQueue()
        let (records, _) = recordTitles(of: album, on: held.queue, coalescing: true, by: observer)
        weak var removed: Track?
        do {
            let track = album.mutableArrayValue(for: \.tracks).remove(at: 1)
            removed = track
            track.title = "gone"
        }
        held.releaseAndDrain()
        #expect(records.changes == [record(.removal, ["b"], nil, at: IndexSet(integer: 1))])
        #expect(removed == nil)
    }

    @Test func withDistinctAMergedRecordThatCameBackIsNotDelivered() {
        let album = Album(["a", "b"])
        let observer = TestObserver()
        let held = HeldQueue()
        let (records, _) = recordTitles(
            of: album,
            options: [.old, .new, .prior, .distinct],
            on: held.queue,
            coalescing: true,
            by: observer
        )
        album.tracks[0].title = "x"
        album.tracks[0].title = "a"
        album.tracks[1].title = "y"
        held.releaseAndDrain()
        #expect(
            records.changes == [
                setting(["b"], nil, at: 1, prior: true), setting(["b"], ["y"], at: 1),
            ]
        )
    }

    @Test func thePriorRecordOfAMergedRecordIsItsFirstChanges() {
        let album = Album(["a"])
        let observer = TestObserver()
        let held = HeldQueue()
        let (records, _) = recordTitles(
            of: album,
            options: [.old, .new, .prior],
            on: held.queue,
            coalescing: true,
            by: observer
        )
        for title in ["x", "y", "z"] { album.tracks[0].title = title }
        held.releaseAndDrain()
        #expect(records.changes == [setting(["a"], nil, at: 0, prior: true), setting(["a"], ["z"], at: 0)])
    }

    @Test func nothingWaitingIsDeliveredAfterUnobserveReturns() {
        let album = Album(["a"])
        let observer = TestObserver()
        let held = HeldQueue()
        let (records, _) = recordTitles(of: album, on: held.queue, coalescing: false, by: observer)
        album.tracks[0].title = "x"
        album.mutableArrayValue(for: \.tracks).insert(Track("z"), at: 0)
        observer.kvoController.unobserve(album, each: \.tracks, keyPath: \.title)
        held.releaseAndDrain()
        #expect(records.count == 0)
        #expect(album.tracks[1].kvoRegistrar.registrationCount == 0)
    }

    @Test func aReleasedObserverIsNotCalledAndNotKeptAlive() {
        let album = Album(["a"])
        let held = HeldQueue()
        let calls = CallCounter()
        weak var gone: TestObserver?
        do {
            let observer = TestObserver()
            gone = observer
            observer.kvoController.observe(
                album,
                each: \.tracks,
                keyPath: \.title,
                delivery: .queue(held.queue, coalescing: .latest)
            ) { _, _ in calls.increment() }
            album.tracks[0].title = "x"
        }
        #expect(gone == nil)
        held.releaseAndDrain()
        #expect(calls.count == 0)
    }

    @Test func aSetsElementsAreDeliveredWithNoIndexes() {
        let album = Album()
        let song = Track("s")
        album.favourites = [song]
        let observer = TestObserver()
        let held = HeldQueue()
        let records = Recorder<[String]>()
        observer.kvoController.observe(
            album,
            each: \.favourites,
            keyPath: \.title,
            options: [.old, .new],
            delivery: .queue(held.queue, coalescing: .latest)
        ) { _, change in records.append(change) }
        song.title = "t"
        song.title = "u"
        held.releaseAndDrain()
        #expect(
            records.changes == [
                KVOChange(kind: .setting, oldValue: ["s"], newValue: ["u"], indexes: nil, keyPath: \Album.favourites)
            ]
        )
    }

    @Test @MainActor func aBlockedMainLoopGetsOneRecordPerElementChanged() async {
        let album = Album(["a", "b"])
        let observer = TestObserver()
        let records = Recorder<[String]>()
        let onMainActor = PlaceLog()
        observer.kvoController.observe(
            album,
            each: \.tracks,
            keyPath: \.title,
            options: [.old, .new],
            delivery: .mainActor(coalescing: .latest)
        ) { _, change in
            onMainActor.append(isOnMainActor())
            records.append(change)
        }
        // The main thread waits here, running no main loop, while another thread makes every change.
        TestThread {
            for step in 1...1_000 {
                album.tracks[1].title = "b\(step)"
                album.tracks[0].title = "a\(step)"
            }
        }.join()
        #expect(records.count == 0)
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
        #expect(records.changes == [setting(["b"], ["b1000"], at: 1), setting(["a"], ["a1000"], at: 0)])
        #expect(onMainActor.values == [true, true])
    }

    @Test @MainActor func onTheMainActorWithNothingQueuedARecordIsDeliveredAtOnce() {
        let album = Album(["a"])
        let observer = TestObserver()
        let records = Recorder<[String]>()
        observer.kvoController.observe(
            album,
            each: \.tracks,
            keyPath: \.title,
            options: [.initial, .new],
            delivery: .mainActor
        ) { _, change in records.append(change) }
        #expect(records.changes == [KVOChange(newValue: ["a"], keyPath: \Album.tracks)])
        album.tracks[0].title = "b"
        #expect(records.changes.last == setting(nil, ["b"], at: 0))
    }

    @Test func threadsChangingElementsLoseAndDoubleNoChange() {
        let album = Album((0..<4).map { "t\($0)" })
        let observer = TestObserver()
        let queue = DispatchQueue(label: "KVOMediatorTests.elements")
        let (records, onQueue) = recordTitles(of: album, on: queue, coalescing: false, by: observer)
        let tracks = album.tracks
        let threads = tracks.indices.map { index in
            TestThread { for step in 1...250 { tracks[index].title = "t\(index)-\(step)" } }
        }
        for thread in threads { thread.join() }
        queue.sync {}
        #expect(records.count == 1_000)
        #expect(onQueue.values.allSatisfy { $0 })
        // Each element's records come in the order of its changes, one for each.
        for index in tracks.indices {
            let news = records.changes.filter { $0.indexes == IndexSet(integer: index) }.map { $0.newValue![0] }
            #expect(news == (1...250).map { "t\(index)-\($0)" })
        }
    }

    @Test func aCallbackThatUnobservesStopsTheRecordsTakenWithIt() {
        let album = Album(["a", "b"])
        let observer = TestObserver()
        let held = HeldQueue()
        let records = Recorder<[String]>()
        observer.kvoController.observe(
            album,
            each: \.tracks,
            keyPath: \.title,
            options: [.new],
            delivery: .queue(held.queue, coalescing: .latest)
        ) { observer, change in
            records.append(change)
            observer.kvoController.unobserve(album, each: \.tracks, keyPath: \.title)
        }
        album.tracks[0].title = "x"
        album.tracks[1].title = "y"
        held.releaseAndDrain()
        #expect(records.changes == [setting(nil, ["x"], at: 0)])
        #expect(album.tracks.map { $0.kvoRegistrar.registrationCount } == [0, 0])
    }

    @Test func whatWaitsWhenTheObjectDeinitialisesIsNotDeliveredAndItsElementsAreLetGo() {
        let observer = TestObserver()
        let held = HeldQueue()
        let calls = CallCounter()
        let track = Track("a")
        weak var gone: Album?
        do {
            let album = Album()
            album.tracks = [track]
            gone = album
            observer.kvoController.observe(album, each: \.tracks, keyPath: \.title, delivery: .queue(held.queue)) {
                _,
                _ in calls.increment()
            }
            track.title = "x"
        }
        #expect(gone == nil)
        #expect(track.kvoRegistrar.registrationCount == 0)
        held.releaseAndDrain()
        #expect(calls.count == 0)
        #expect(observer.kvoController.observationCount == 0)
    }

    @Test func aTransactionsRecordsAreDeliveredOnTheQueueWhenItEnds() {
        let album = Album(["a", "b"])
        let observer = TestObserver()
        let held = HeldQueue()
        let (records, _) = recordTitles(of: album, on: held.queue, coalescing: true, by: observer)
        withKVOTransaction {
            album.tracks[0].title = "x"
            album.tracks[0].title = "y"
            album.tracks[1].title = "z"
        }
        album.tracks[0].title = "w"
        held.releaseAndDrain()
        #expect(records.changes == [setting(["a"], ["w"], at: 0), setting(["b"], ["z"], at: 1)])
    }

    @Test @MainActor func aMainActorViewModelKeepsItsRowsFromAnotherThreadsChanges() async {
        let album = Album(["a", "b"])
        let viewModel = TrackListViewModel(album: album)
        #expect(viewModel.titles == ["a", "b"])
        TestThread {
            for step in 1...100 { album.tracks[1].title = "b\(step)" }
            album.mutableArrayValue(for: \.tracks).insert(Track("z"), at: 0)
            album.tracks[0].title = "Z"
        }.join()
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
        #expect(viewModel.titles == ["Z", "a", "b100"])
        #expect(viewModel.reloadedRows == [1, 0])
    }
}
