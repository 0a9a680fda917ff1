import Foundation
import KVOMediator
import Synchronization
import Testing

@testable import KVOMediator

/// Registrations, controllers and observers made and ended while other threads change what they observe.
@Suite struct ChurnStressTests {
    @Test func registrationRacingWithTheObservedObjectsDeinit() {
        // Objects are made on one thread and dropped there right after another thread starts observing them.
        let handoff = Handoff<Circle>()
        let lives = LifeLog()
        let producer = TestThread {
            for _ in 0..<StressTests.iterations {
                let circle = Circle()
                lives.append(circle)
                handoff.put(circle)
                circle.borderWidth = 2  // races the other thread's observe (which reads only radius)
            }
            handoff.close()
        }
        let consumer = TestThread {
            let observer = TestObserver()
            let controller = KVOController(observer: observer)
            while let circle = handoff.take() {
                controller.observe(circle, keyPath: \.radius, options: [.initial, .new]) { _, _, _ in }
                controller.observe(circle, keyPath: \.area) { _, _, _ in }
            }
            controller.unobserveAll()
        }
        producer.join()
        consumer.join()
        #expect(lives.allReleased)
    }

    @Test func controllersMadeUsedAndReleasedWhileSeveralThreadsMutate() {
        let heads = (0..<4).map { SharedCell(value: $0, next: SharedCell()) }
        let shared = SharedList(heads)
        let stop = Atomic<Bool>(false)
        let writers = (0..<2).map { writer in
            TestThread {
                var round = 0
                while !stop.load(ordering: .relaxed) {
                    round &+= 1
                    for head in shared.items {
                        head.value = round
                        if round % 50 == writer { head.next = SharedCell(value: round) }
                        head.next?.value = round
                    }
                }
            }
        }
        let lives = LifeLog()
        for index in 0..<StressTests.iterations {
            let observer = TestObserver()
            lives.append(observer)
            lives.append(observer.kvoController)
            let head = heads[index % heads.count]
            observer.kvoController.observe(head, keyPath: \.value, options: [.old, .new]) { _, _, _ in }
            observer.kvoController.observe(head, keyPath: \.next?.value, options: [.prior, .new]) { _, _, _ in }
            observer.kvoController.observe(head, keyPath: \.sumWithNext) { _, _, _ in }
        }
        stop.store(true, ordering: .relaxed)
        for writer in writers { writer.join() }
        #expect(lives.allReleased)
        #expect(heads.allSatisfy { $0.kvoRegistrar.subscriptionCount == 0 })
        #expect(heads.allSatisfy { $0.next?.kvoRegistrar.subscriptionCount == 0 })
    }

    @Test func everyObserverSeesEveryValueOnceInOrderWhileOthersComeAndGo() {
        let cell = SharedCell()
        Self.expectEveryValueOnceInOrder(
            observe: { observer, log in
                observer.kvoController.observe(cell, keyPath: \.value, options: [.old, .new]) { _, _, change in
                    log.record(change)
                }
            },
            write: { cell.value = $0 },
            churn: { passerby, _ in
                // Unrelated registrations on the same object and key, made and removed meanwhile.
                passerby.kvoController.observe(cell, keyPath: \.value) { _, _, _ in }
                passerby.kvoController.observe(cell, keyPath: \.next) { _, _, _ in }
            }
        )
    }

    @Test func observedPropertySetterDeliversEveryValueOnceInOrderWhileOtherObjectsChurn() {
        let circle = Circle()
        let others = SharedList((0..<4).map { _ in Circle() })
        Self.expectEveryValueOnceInOrder(
            observe: { observer, log in
                observer.kvoController.observe(circle, keyPath: \.borderWidth, options: [.old, .new]) {
                    _,
                    _,
                    change in log.record(change)
                }
            },
            write: { circle.borderWidth = $0 },
            churn: { passerby, round in
                passerby.kvoController.observe(others.items[round % 4], keyPath: \.radius) { _, _, _ in }
            }
        )
    }

    /// Four observers registered before one writer sets 1…100,000, while another thread makes
    /// (and removes every other round) unrelated registrations: each observer must see every value
    /// once, in order.
    static func expectEveryValueOnceInOrder(
        observe: (TestObserver, OrderLog) -> Void,
        write: @escaping @Sendable (Int) -> Void,
        churn: @escaping @Sendable (TestObserver, Int) -> Void
    ) {
        let values = 100_000
        let logs = (0..<4).map { _ in OrderLog() }
        let observers = logs.map { log in
            let observer = TestObserver()
            observe(observer, log)
            return observer
        }
        let stop = Atomic<Bool>(false)
        let churner = TestThread {
            var round = 0
            while !stop.load(ordering: .relaxed) {
                round += 1
                let passerby = TestObserver()
                churn(passerby, round)
                if round % 2 == 0 { passerby.kvoController.unobserveAll() }
            }
        }
        let writer = TestThread {
            for value in 1...values { write(value) }
        }
        writer.join()
        stop.store(true, ordering: .relaxed)
        churner.join()
        for log in logs {
            #expect(log.count == values)
            #expect(log.violations == 0)
        }
        withExtendedLifetime(observers) {}
    }
}
