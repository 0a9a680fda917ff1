import Dispatch
import KVOMediator

// - notify_queue: notify_1 delivered on a serial queue (`delivery: .queue(q)`): the set, the hop to the
//   queue and the callback there, the operation waiting with `q.sync {}` until it ran; floor: the same
//   hop by hand (`q.async` of a closure that records the value, then `q.sync {}`), dispatch's own cost.

func queueDeliveryScenarios() -> [Scenario] {
    [
        Scenario("notify_queue.ours") { iterations in
            let model = Counter()
            let received = Received()
            let watcher = QueueWatcher()
            let queue = DispatchQueue(label: "KVOCallgrind.notify_queue")
            watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old], delivery: .queue(queue)) {
                _,
                change in received.record(change.newValue)
            }
            forEachNewValue(iterations) { value in
                model.x = value
                queue.sync {}
            }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
        Scenario("notify_queue.dispatch") { iterations in
            let received = Received()
            let queue = DispatchQueue(label: "KVOCallgrind.notify_queue.dispatch")
            forEachNewValue(iterations) { value in
                queue.async { received.record(value) }
                queue.sync {}
            }
            received.expect(iterations)
        },
    ]
}

/// A `Sendable` observer, as queue delivery asks.
private final class QueueWatcher: @unchecked Sendable {  // its controller is used by one thread at a time
    lazy var kvoController = KVOController(observer: self)
}
