import Foundation
import Synchronization

@testable import KVOMediator

/// Checks that values arrive as 1, 2, 3, … with nothing lost or repeated.
final class OrderLog: @unchecked Sendable {  // written only by the one writing thread, read after it stops
    private(set) var count = 0
    private(set) var violations = 0

    func record(_ change: KVOChange<Int>) {
        count += 1
        if change.newValue != count || change.oldValue != count - 1 { violations += 1 }
    }
}

/// A list handed to another thread once and only read there.
final class SharedList<Item>: @unchecked Sendable {  // immutable after init
    let items: [Item]

    init(_ items: [Item]) {
        self.items = items
    }
}

/// A one-slot-at-a-time queue between two threads.
final class Handoff<Item: AnyObject>: @unchecked Sendable {  // guarded by `condition`
    private let condition = NSCondition()
    private var items: [Item] = []
    private var closed = false

    func put(_ item: Item) {
        condition.withLock {
            items.append(item)
            condition.signal()
        }
    }

    func close() {
        condition.withLock {
            closed = true
            condition.broadcast()
        }
    }

    func take() -> Item? {
        condition.withLock {
            while items.isEmpty && !closed { condition.wait() }
            return items.isEmpty ? nil : items.removeFirst()
        }
    }
}

/// Takes a moment to deinitialise.
final class SlowDeinit: Sendable {
    deinit {
        usleep(100)
    }
}

/// An object whose only job is to be captured by a callback and checked for release (weakly).
final class Canary: Sendable {}

/// A registration handed to callbacks made before it existed (set once, before any change).
final class TokenSlot: @unchecked Sendable {  // written before the threads that read it start
    var token: KVOObservation?
}

/// A token on a circle's radius whose callback, once a change arrives, signals `entered` and waits for
/// `proceed`: a callback held in flight for as long as a test needs, keeping alive a canary that only its
/// block holds.
final class HeldCallback: @unchecked Sendable {  // `slot` and `canary` are set before any change
    let entered = DispatchSemaphore(value: 0)
    let proceed = DispatchSemaphore(value: 0)
    let slot = TokenSlot()
    /// Nil once the block is released.
    weak var canary: Canary?

    init(observing circle: Circle) throws {
        let canary = Canary()
        self.canary = canary
        let (entered, proceed) = (entered, proceed)
        slot.token = try circle.observe(\.radius) { _, _ in
            entered.signal()
            proceed.wait()
            withExtendedLifetime(canary) {}
        }
    }
}
