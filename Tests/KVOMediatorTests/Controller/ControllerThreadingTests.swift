import Foundation
import KVOMediator
import Synchronization
import Testing

@testable import KVOMediator

/// Controllers created, used and released on some threads while others mutate the observed objects.
@Suite struct ControllerThreadingTests {
    @Test func controllersComeAndGoWhileOtherThreadsMutate() {
        let circles = (0..<4).map { SharedCell(value: $0, next: SharedCell()) }
        let stop = Atomic<Bool>(false)
        let delivered = Atomic<Int>(0)
        // The workers start once both writers are writing: an optimised build's workers can otherwise run
        // all their cycles before a writer thread is first scheduled, and see no change at all.
        let writing = Atomic<Int>(0)
        let lives = LifeLog()
        // Each circle has one writer: a property is never written by two threads at once.
        let writers = [Array(circles[0..<2]), Array(circles[2..<4])].map { owned in
            TestThread {
                var value = 0.0
                writing.wrappingAdd(1, ordering: .relaxed)
                while !stop.load(ordering: .relaxed) {
                    value += 1
                    for circle in owned {
                        circle.value = Int(value)
                        circle.next?.value = Int(value) % 7
                    }
                }
            }
        }
        let cycles = 1_000
        let workers = (0..<2).map { worker in
            TestThread {
                while writing.load(ordering: .relaxed) < 2 { sched_yield() }
                for cycle in 0..<cycles {
                    weak var weakObserver: TestObserver?
                    weak var weakController: KVOController<TestObserver>?
                    do {
                        let observer = TestObserver(name: "w\(worker)")
                        weakObserver = observer
                        weakController = observer.kvoController
                        for circle in circles {
                            observer.kvoController.observe(circle, keyPath: \.value, options: [.new, .old]) {
                                _,
                                _,
                                _ in
                                delivered.wrappingAdd(1, ordering: .relaxed)
                            }
                            observer.kvoController.observe(circle, keyPath: \.sumWithNext, options: [.prior, .new]) {
                                _,
                                _,
                                _ in
                                delivered.wrappingAdd(1, ordering: .relaxed)
                            }
                        }
                        if cycle % 3 == 0 { observer.kvoController.unobserve(circles[cycle % 4]) }
                        if cycle % 5 == 0 { observer.kvoController.unobserveAll() }
                    }
                    // A callback in flight on a writer may hold the observer a moment longer: check at the end.
                    lives.append(weakObserver)
                    lives.append(weakController)
                }
            }
        }
        let finished = workers.allSatisfy { $0.join() }
        stop.store(true, ordering: .relaxed)
        for writer in writers { writer.join() }

        #expect(finished)
        #expect(lives.count == 2 * 2 * cycles)
        #expect(lives.allReleased)
        #expect(delivered.load(ordering: .relaxed) > 0)
        #expect(circles.allSatisfy { $0.kvoRegistrar.subscriptionCount == 0 })
    }

    /// Setting up observations reads the property (and locates its storage) on several threads at once
    /// while another thread only reads it: reads do not race, so ThreadSanitizer must report nothing.
    @Test func observingOnSeveralThreadsWhileAnotherReadsTheSamePropertyIsNoRace() {
        let circle = Circle()
        let stop = Atomic<Bool>(false)
        let reader = TestThread {
            var total = 0.0
            while !stop.load(ordering: .relaxed) { total += circle.radius }
            blackHoleForTests(total)
        }
        let observers = (0..<2).map { _ in
            TestThread {
                for _ in 0..<300 {
                    let token = try? circle.observe(\.radius, options: [.initial, .new]) { _, _ in }
                    token?.invalidate()
                }
            }
        }
        for observer in observers { observer.join() }
        stop.store(true, ordering: .relaxed)
        reader.join()
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func noCallbackStartsAfterUnobserveReturns() {
        let circle = SharedCell()
        let stop = Atomic<Bool>(false)
        let violations = Atomic<Int>(0)
        let writer = TestThread {
            var value = 0
            while !stop.load(ordering: .relaxed) {
                value += 1
                circle.value = value
            }
        }
        let observer = TestObserver()
        for _ in 0..<2_000 {
            let unobserved = Atomic<Bool>(false)
            observer.kvoController.observe(circle, keyPath: \.value) { _, _, _ in
                if unobserved.load(ordering: .acquiring) { violations.wrappingAdd(1, ordering: .relaxed) }
            }
            observer.kvoController.unobserve(circle, keyPath: \.value)
            unobserved.store(true, ordering: .releasing)
        }
        stop.store(true, ordering: .relaxed)
        writer.join()
        #expect(violations.load(ordering: .relaxed) == 0)
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func observerReleasedOnAnotherThreadIsNeverCalledWhileDeinitialising() {
        let circle = SharedCell()
        let stop = Atomic<Bool>(false)
        let callsAfterDeinit = Atomic<Int>(0)
        let writer = TestThread {
            var value = 0
            while !stop.load(ordering: .relaxed) {
                value += 1
                circle.value = value
            }
        }
        for _ in 0..<2_000 {
            let observer = DeinitFlagObserver()
            observer.kvoController.observe(circle, keyPath: \.value) { observer, _, _ in
                if observer.deinitialising.load(ordering: .acquiring) {
                    callsAfterDeinit.wrappingAdd(1, ordering: .relaxed)
                }
            }
        }
        stop.store(true, ordering: .relaxed)
        writer.join()
        #expect(callsAfterDeinit.load(ordering: .relaxed) == 0)
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
    }
}

/// Raises a flag when its deinit starts.
final class DeinitFlagObserver {
    lazy var kvoController = KVOController(observer: self)
    let deinitialising = Atomic<Bool>(false)

    deinit {
        deinitialising.store(true, ordering: .releasing)
    }
}

/// Weak references to check once the threads have stopped.
final class LifeLog: @unchecked Sendable {  // `references` is guarded by `lock`
    private struct WeakReference {
        weak var object: AnyObject?
    }

    private let lock = NSLock()
    private var references: [WeakReference] = []

    var count: Int {
        lock.withLock { references.count }
    }

    var allReleased: Bool {
        lock.withLock { references.allSatisfy { $0.object == nil } }
    }

    func append(_ object: AnyObject?) {
        lock.withLock { references.append(WeakReference(object: object)) }
    }
}

/// Keeps a computed value from being optimised away.
@inline(never)
func blackHoleForTests<Value>(_ value: Value) {
    withExtendedLifetime(value) {}
}
