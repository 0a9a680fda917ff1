import Foundation
import Synchronization
import Testing

@testable import KVOMediator

/// Delivery is named at the call site: every form without `delivery:` calls back synchronously on the
/// changing thread, and asynchronous delivery keeps order and isolation.
@Suite struct ExplicitDeliveryTests {
    @Test func everyFormWithoutADeliveryCallsBackSynchronouslyOnTheChangingThread() throws {
        let circle = Circle()
        let observer = ContextObserver()
        let stringObserver = TestObserver()
        let actionObserver = ActionObserver()
        let calls = Mutex<[String]>([])
        let writerThread = Mutex<ObjectIdentifier?>(nil)
        @Sendable func record(_ form: String) {
            let onWriter = writerThread.withLock { $0 == ObjectIdentifier(Thread.current) }
            calls.withLock { $0.append(onWriter ? form : "\(form) on another thread") }
        }
        observer.kvoController.observe(circle, keyPath: \.radius) { _, _, _ in record("block") }
        observer.kvoController.observe(circle, keyPaths: [\.name]) { _, _, _ in record("keyPaths") }
        observer.kvoController.observe(circle, keyPaths: [\.borderWidth], context: nil)
        try stringObserver.kvoController.observe(circle, keyPath: "radius") { _, _, _ in record("string") }
        actionObserver.kvoController.observe(circle, keyPath: \.radius, action: ActionObserver.radiusDidChange)
        let token = try circle.observe(\.radius) { _, _ in record("token") }
        let radii = actionObserver.radii
        // What had been delivered when each set returned.
        let countsAtReturn = Mutex<[Int]>([])
        TestThread {
            writerThread.withLock { $0 = ObjectIdentifier(Thread.current) }
            circle.radius = 2
            countsAtReturn.withLock { $0.append(calls.withLock { $0.count } + radii.count) }
            circle.name = "disc"
            countsAtReturn.withLock { $0.append(calls.withLock { $0.count } + radii.count) }
        }.join()
        TestThread { circle.borderWidth = 3 }.join()
        #expect(calls.withLock { $0 }.sorted() == ["block", "keyPaths", "string", "token"])
        #expect(countsAtReturn.withLock { $0 } == [4, 5])
        #expect(observer.deliveries.count == 1)
        #expect(actionObserver.radii.onMainThread == [false])
        token.invalidate()
    }

    @Test func oneSerialQueueKeepsTheOrderOfChangesAcrossRegistrations() async {
        let pair = Pair()
        let observer = TestObserver()
        let other = TestObserver()
        let queue = DispatchQueue(label: "KVOMediatorTests.serial")
        let log = Mutex<[String]>([])
        observer.kvoController.observe(pair, keyPath: \.a, delivery: .queue(queue)) { _, change in
            log.withLock { $0.append("a\(change.newValue!)") }
        }
        // Another controller, delivering to the same queue: one lane for both.
        other.kvoController.observe(pair, keyPath: \.b, delivery: .queue(queue)) { _, change in
            log.withLock { $0.append("b\(change.newValue!)") }
        }
        let writer = TestThread {
            for index in 0..<2_000 {
                pair.a = index
                pair.b = index
            }
        }
        writer.join()
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        let expected = (0..<2_000).flatMap { ["a\($0)", "b\($0)"] }
        let delivered = log.withLock { $0 }
        #expect(delivered.count == expected.count)
        #expect(delivered == expected)
    }

    @Test @MainActor func aMainActorObserverDeinitialisesOnTheMainActorWhileAnotherThreadChangesItsModel() async {
        let threads = DeinitThreads()
        let rounds = 1_000
        for _ in 0..<rounds {
            let cell = SharedCell()
            var viewModel: CounterViewModel? = CounterViewModel(observing: cell, threads: threads)
            let started = DispatchSemaphore(value: 0)
            let writer = TestThread {
                started.signal()
                for value in 1...200 { cell.value = value }
            }
            started.wait()
            await Task.yield()  // lets some deliveries run on the main actor
            viewModel = nil  // released while the writer may be mid-delivery
            #expect(viewModel == nil)
            writer.join()
        }
        // Deliveries still queued then run (and find no observer).
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
        #expect(threads.counts.onMain == rounds)
        #expect(threads.counts.offMain == 0)
    }

    @Test func mainActorAndQueueDeliveryAreNamedNotInferred() async {
        // Both asynchronous forms say so at the call site; a change on another thread reaches each
        // on its own executor.
        let pair = Pair()
        let observer = TestObserver()
        let queue = DispatchQueue(label: "KVOMediatorTests.named")
        let onMain = Mutex<[Bool]>([])
        let onQueue = Mutex<Int>(0)
        observer.kvoController.observe(pair, keyPath: \.a, delivery: .mainActor) { _, _ in
            onMain.withLock { $0.append(isOnMainActor()) }
        }
        observer.kvoController.observe(pair, keyPath: \.b, delivery: .queue(queue)) { _, _ in
            onQueue.withLock { $0 += 1 }
        }
        TestThread {
            pair.a = 1
            pair.b = 1
        }.join()
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(onMain.withLock { $0 } == [true])
        #expect(onQueue.withLock { $0 } == 1)
    }
}
