import Foundation
import Synchronization
import Testing

@testable import KVOMediator

/// The library's lock: mutual exclusion under oversubscription, sleeping waiters, and the lock order.
@Suite struct LockTests {
    @Test func sixteenThreadsOnTwoCoresIncrementUnderTheLockWithoutLosingAnUpdate() {
        let lock = Lock()
        let total = UnsafeCounter()
        let threads = (0..<16).map { _ in
            TestThread {
                for _ in 0..<20_000 {
                    lock.withLock { total.value += 1 }
                }
            }
        }
        for thread in threads { thread.join() }
        #expect(lock.withLock { total.value } == 16 * 20_000)
    }

    @Test func aWaiterSleepsWhileTheLockIsHeldAndTakesItWhenReleased() {
        let lock = Lock()
        let taken = Atomic<Bool>(false)
        lock.lock()
        let waiter = TestThread {
            lock.lock()
            taken.store(true, ordering: .releasing)
            lock.unlock()
        }
        usleep(50_000)  // long past the waiter's brief spin: it is asleep on the lock word
        let takenWhileHeld = taken.load(ordering: .acquiring)
        #expect(!takenWhileHeld)
        lock.unlock()
        waiter.join()
        let takenAfter = taken.load(ordering: .acquiring)
        #expect(takenAfter)
    }

    #if DEBUG
    @Test func takingALowerLevelLockWhileHoldingAHigherOneStopsADebugBuild() async {
        await #expect(processExitsWith: .failure) {
            let registrar = Lock(level: .registrar)
            let controller = Lock(level: .controller)
            registrar.withLock { controller.withLock {} }
        }
    }

    @Test func locksTakenInLevelOrderNestFreely() {
        let controller = Lock(level: .controller)
        let registration = Lock(level: .registration)
        let leaf = Lock()
        controller.withLock { registration.withLock { leaf.withLock {} } }
        #expect(ThreadContext.current.heldLockLevels.isEmpty)
    }
    #endif
}
