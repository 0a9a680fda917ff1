import Foundation
import Synchronization
import Testing

@testable import KVOMediator

/// `delivery: .queue(q, coalescing: .latest)` and `.mainActor(coalescing: .latest)`: while a delivery
/// waits, newer changes merge into it (old from the first, new from the last).
@Suite struct CoalescedDeliveryTests {
    @Test @MainActor func aBlockedMainLoopGetsOneRecordForAThousandChanges() async {
        let importer = Importer()
        let observer = TestObserver()
        let records = Mutex<[KVOChange<Int>]>([])
        let threads = Mutex<[Bool]>([])
        observer.kvoController.observe(
            importer,
            keyPath: \.progress,
            options: [.old, .new],
            delivery: .mainActor(coalescing: .latest)
        ) { _, change in
            records.withLock { $0.append(change) }
            threads.withLock { $0.append(isOnMainActor()) }
        }
        // The main thread waits here, running no main loop, while another thread makes every change.
        TestThread { for value in 1...1_000 { importer.progress = value } }.join()
        #expect(records.withLock { $0 }.isEmpty)
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
        #expect(records.withLock { $0 } == [change(\Importer.progress, old: 0, new: 1_000)])
        #expect(threads.withLock { $0 } == [true])
    }

    @Test func aBusyQueueGetsOneRecordWithTheFirstOldAndTheLastNewValue() {
        let importer = Importer()
        let observer = TestObserver()
        let held = HeldQueue()
        let records = recordCoalesced(importer, \.progress, options: [.old, .new], on: held.queue, by: observer)
        for value in 1...500 { importer.progress = value }
        held.releaseAndDrain()
        importer.progress = 501
        held.queue.sync {}
        #expect(
            records.changes == [
                change(\Importer.progress, old: 0, new: 500), change(\Importer.progress, old: 500, new: 501),
            ]
        )
    }

    @Test func withoutCoalescingEveryChangeIsDelivered() {
        let importer = Importer()
        let observer = TestObserver()
        let held = HeldQueue()
        let count = Mutex(0)
        observer.kvoController.observe(importer, keyPath: \.progress, delivery: .queue(held.queue)) { _, _ in
            count.withLock { $0 += 1 }
        }
        for value in 1...100 { importer.progress = value }
        held.releaseAndDrain()
        #expect(count.withLock { $0 } == 100)
    }

    @Test func aWaitingDeliveryKeepsItsPlaceAmongTheLanesOtherDeliveries() {
        let importer = Importer()
        let observer = TestObserver()
        let other = TestObserver()
        let held = HeldQueue()
        let log = Mutex<[String]>([])
        observer.kvoController.observe(
            importer,
            keyPath: \.progress,
            delivery: .queue(held.queue, coalescing: .latest)
        ) { _, change in log.withLock { $0.append("progress \(change.newValue!)") } }
        other.kvoController.observe(importer, keyPath: \.status, delivery: .queue(held.queue)) { _, change in
            log.withLock { $0.append("status \(change.newValue!)") }
        }
        importer.progress = 1
        importer.status = "reading"
        importer.progress = 2
        importer.status = "done"
        held.releaseAndDrain()
        #expect(log.withLock { $0 } == ["progress 2", "status reading", "status done"])
    }

    @Test func thePriorRecordOfTheFirstChangeGoesJustBeforeTheMergedRecord() {
        let importer = Importer()
        let observer = TestObserver()
        let held = HeldQueue()
        let records = recordCoalesced(
            importer,
            \.progress,
            options: [.old, .new, .prior],
            on: held.queue,
            by: observer
        )
        for value in 1...3 { importer.progress = value }
        held.releaseAndDrain()
        #expect(
            records.changes == [
                change(\Importer.progress, old: 0, prior: true), change(\Importer.progress, old: 0, new: 3),
            ]
        )
    }

    @Test(arguments: [false, true])
    func aPriorCallbackThatEndsTheRegistrationStopsTheMergedRecordAfterIt(endingAll: Bool) {
        let importer = Importer()
        let observer = TestObserver()
        let held = HeldQueue()
        let records = Recorder<Int>()
        observer.kvoController.observe(
            importer,
            keyPath: \.progress,
            options: [.old, .new, .prior],
            delivery: .queue(held.queue, coalescing: .latest)
        ) { observer, change in
            records.append(change)
            if endingAll {
                observer.kvoController.unobserveAll()
            } else {
                observer.kvoController.unobserve(importer, keyPath: \.progress)
            }
        }
        importer.progress = 1
        importer.progress = 2
        held.releaseAndDrain()
        #expect(records.changes == [change(\Importer.progress, old: 0, prior: true)])
        #expect(importer.kvoRegistrar.registrationCount == 0)
    }

    @Test func recordsCarryOnlyTheValuesAskedFor() {
        let importer = Importer()
        let observer = TestObserver()
        let held = HeldQueue()
        let records = recordCoalesced(importer, \.progress, options: [.new], on: held.queue, by: observer)
        importer.progress = 1
        importer.progress = 2
        held.releaseAndDrain()
        #expect(records.changes == [change(\Importer.progress, new: 2)])
    }

    @Test func mergedCollectionMutationsArriveAsOneSettingOfTheWholeCollection() {
        let importer = Importer()
        let observer = TestObserver()
        let held = HeldQueue()
        let records = recordCoalesced(importer, \.rows, options: [.old, .new], on: held.queue, by: observer)
        let rows = importer.mutableArrayValue(for: \.rows)
        rows.append(1)
        rows.append(2)
        rows.insert(0, at: 0)
        held.releaseAndDrain()
        rows.remove(at: 1)
        held.queue.sync {}
        #expect(
            records.changes == [
                change(\Importer.rows, old: [], new: [0, 1, 2]), change(\Importer.rows, old: [0, 1, 2], new: [0, 2]),
            ]
        )
    }

    @Test func anInitialRecordStillWaitingTakesTheNewestValue() {
        let importer = Importer()
        let observer = TestObserver()
        let held = HeldQueue()
        let records = recordCoalesced(
            importer,
            \.progress,
            options: [.initial, .old, .new],
            on: held.queue,
            by: observer
        )
        importer.progress = 7
        importer.progress = 8
        held.releaseAndDrain()
        #expect(records.changes == [change(\Importer.progress, new: 8)])
    }

    @Test func withDistinctAMergedRecordThatEndsWhereItStartedIsNotDelivered() {
        let importer = Importer()
        let observer = TestObserver()
        let held = HeldQueue()
        let records = recordCoalesced(importer, \.progress, options: [.new, .distinct], on: held.queue, by: observer)
        importer.progress = 1
        importer.progress = 0
        held.releaseAndDrain()
        importer.progress = 0
        importer.progress = 3
        held.queue.sync {}
        #expect(records.changes == [change(\Importer.progress, new: 3)])
    }

    @Test func afterUnobserveReturnsAWaitingDeliveryDoesNotRun() {
        let importer = Importer()
        let observer = TestObserver()
        let held = HeldQueue()
        let count = Mutex(0)
        observer.kvoController.observe(
            importer,
            keyPath: \.progress,
            delivery: .queue(held.queue, coalescing: .latest)
        ) { _, _ in count.withLock { $0 += 1 } }
        importer.progress = 1
        importer.progress = 2
        observer.kvoController.unobserve(importer, keyPath: \.progress)
        held.releaseAndDrain()
        #expect(count.withLock { $0 } == 0)
    }

    @Test func changesFromManyThreadsTakingTurnsMergeIntoAnUnbrokenChainOfRecords() {
        let importer = Importer()
        let observer = TestObserver()
        let queue = DispatchQueue(label: "KVOMediatorTests.coalescingThreads")
        let pairs = Mutex<[[Int?]]>([])
        observer.kvoController.observe(
            importer,
            keyPath: \.progress,
            options: [.old, .new],
            delivery: .queue(queue, coalescing: .latest)
        ) { _, change in pairs.withLock { $0.append([change.oldValue, change.newValue]) } }
        let turns = NSLock()
        let writers = (0..<4).map { _ in
            TestThread { for _ in 0..<2_000 { turns.withLock { importer.progress += 1 } } }
        }
        for writer in writers { writer.join() }
        queue.sync {}
        let delivered = pairs.withLock { $0 }
        // Each record starts where the one before it ended, from 0 to the last value.
        #expect(delivered.first?.first == 0)
        #expect(delivered.last?.last == 8_000)
        #expect(zip(delivered, delivered.dropFirst()).allSatisfy { $0[1] == $1[0] })
        #expect(delivered.allSatisfy { $0[0]! < $0[1]! })
    }

    @Test @MainActor func aChangeOnTheMainActorWithNothingQueuedIsDeliveredAtOnce() {
        let importer = Importer()
        let observer = TestObserver()
        let records = Mutex<[KVOChange<Int>]>([])
        observer.kvoController.observe(
            importer,
            keyPath: \.progress,
            options: [.old, .new],
            delivery: .mainActor(coalescing: .latest)
        ) { _, change in records.withLock { $0.append(change) } }
        importer.progress = 1
        #expect(records.withLock { $0 } == [change(\Importer.progress, old: 0, new: 1)])
        importer.progress = 2
        #expect(records.withLock { $0.count } == 2)
    }

    @Test @MainActor func aPriorRecordDeliveredAloneIsFollowedByItsChangeRecordEvenWhenDistinct() {
        let importer = Importer()
        let observer = TestObserver()
        let records = Mutex<[KVOChange<Bool>]>([])
        // A re-read key path (computed): its prior record goes out before its change is known, and on the
        // main actor with nothing queued each is delivered at once.
        observer.kvoController.observe(
            importer,
            keyPath: \.isEven,
            options: [.old, .new, .prior, .distinct],
            delivery: .mainActor(coalescing: .latest)
        ) { _, change in records.withLock { $0.append(change) } }
        importer.progress = 2
        #expect(
            records.withLock { $0 } == [
                change(\Importer.isEven, old: true, prior: true), change(\Importer.isEven, old: true, new: true),
            ]
        )
    }

    @Test func theMainActorFormsAreNamedWithTheirCoalescing() {
        #expect(KVOMainActorDelivery.mainActor.coalescing == nil)
        #expect(KVOMainActorDelivery.mainActor(coalescing: .latest).coalescing == .latest)
        #expect(KVOQueueDelivery.queue(.main).coalescing == nil)
        #expect(KVOQueueDelivery.queue(.main, coalescing: .latest).coalescing == .latest)
    }
}

/// Observes `keyPath` of `importer` through `observer`'s controller, delivered to `queue` with
/// `coalescing: .latest`, and returns the recorder its records go to.
private func recordCoalesced<Value: Sendable>(
    _ importer: Importer,
    _ keyPath: KeyPath<Importer, Value>,
    options: KVOOptions,
    on queue: DispatchQueue,
    by observer: TestObserver
) -> Recorder<Value> {
    let recorder = Recorder<Value>()
    observer.kvoController.observe(
        importer,
        keyPath: keyPath,
        options: options,
        delivery: .queue(queue, coalescing: .latest)
    ) {
        _,
        change in recorder.append(change)
    }
    return recorder
}
