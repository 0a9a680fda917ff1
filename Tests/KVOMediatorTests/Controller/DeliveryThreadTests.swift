import Foundation
import KVOMediator
import Testing

/// Notifications are synchronous, on the changing thread, with no lock held while user code runs.
@Suite struct DeliveryThreadTests {
    @Test func notificationRunsOnTheThreadThatMadeTheChange() {
        let circle = Circle()
        let observer = TestObserver()
        let threads = ThreadLog()
        observer.kvoController.observe(circle, keyPath: \.radius) { _, _, _ in threads.record() }
        let done = DispatchSemaphore(value: 0)
        let writerID = ThreadLog()
        let thread = Thread {
            writerID.record()
            circle.radius = 3
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(threads.identifiers == writerID.identifiers)
        circle.radius = 4
        #expect(threads.identifiers.count == 2)
        #expect(threads.identifiers.last == ObjectIdentifier(Thread.current))
    }

    @Test func callbackMayMutateTheObjectItObserves() {
        let circle = Circle()
        let observer = TestObserver()
        let radii = Recorder<Double>()
        let borders = Recorder<Int>()
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.old, .new]) { _, circle, change in
            radii.append(change)
            if change.newValue! < 3 { circle.radius += 1 }  // re-entrant set of the same property
            circle.borderWidth = Int(circle.radius)
        }
        observer.kvoController.observe(circle, keyPath: \.borderWidth, options: [.new]) { _, _, change in
            borders.append(change)
        }
        circle.radius = 1.5
        #expect(radii.changes.map(\.newValue) == [1.5, 2.5, 3.5])
        #expect(circle.radius == 3.5)
        #expect(borders.changes.last?.newValue == 3)
    }

    @Test func callbackMayWaitForAnotherThreadChangingTheSameObject() {
        let circle = Circle()
        let observer = TestObserver()
        let borders = Recorder<Int>()
        let outcome = Recorder<Bool>()
        observer.kvoController.observe(circle, keyPath: \.borderWidth, options: [.new]) { _, _, change in
            borders.append(change)
        }
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.new]) { _, circle, _ in
            // Were any lock held while this runs, the other thread's set would block forever.
            let finished = DispatchSemaphore(value: 0)
            Thread {
                circle.borderWidth = 9
                finished.signal()
            }.start()
            outcome.append(
                KVOChange(newValue: finished.wait(timeout: .now() + 10) == .success, keyPath: \Circle.radius)
            )
        }
        circle.radius = 2
        #expect(outcome.changes.map(\.newValue) == [true])
        #expect(borders.changes == [change(\Circle.borderWidth, new: 9)])
    }

    @Test func callbackMayObserveAndUnobserve() {
        let circle = Circle()
        let observer = TestObserver()
        let names = Recorder<String>()
        let radii = Recorder<Double>()
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.new]) { observer, circle, change in
            radii.append(change)
            observer.kvoController.unobserve(circle, keyPath: \.radius)
            observer.kvoController.observe(circle, keyPath: \.name, options: [.new]) { _, _, change in
                names.append(change)
            }
        }
        circle.radius = 2
        circle.radius = 3
        circle.name = "disc"
        #expect(radii.changes == [change(\Circle.radius, new: 2.0)])
        #expect(names.changes == [change(\Circle.name, new: "disc")])
    }
}

/// Records the identity of the threads it is called on.
final class ThreadLog: @unchecked Sendable {  // `values` is guarded by `lock`
    private let lock = NSLock()
    private var values: [ObjectIdentifier] = []

    var identifiers: [ObjectIdentifier] {
        lock.withLock { values }
    }

    func record() {
        let current = ObjectIdentifier(Thread.current)
        lock.withLock { values.append(current) }
    }
}
