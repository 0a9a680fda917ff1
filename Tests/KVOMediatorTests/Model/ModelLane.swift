import Dispatch

/// The queue the world's coalescing registrations deliver to (`ObserveForm.coalesced`): held busy between
/// `deliverCoalesced` operations, so that their records wait, and merge, as they do behind a busy queue.
///
/// The library delivers through its own serial queue, which targets this one. While that queue is draining
/// (it runs as one of this queue's jobs), what is queued to it runs in the same drain, even after a new
/// hold has been queued behind it: so holding means waiting until the hold's job has started, when no
/// drain can be in flight. (Other tests' `settleKVODeliveries()` queue to the library's queues too, so a
/// drain may well be in flight when the lane runs.)
final class ModelLane: Sendable {
    let queue = DispatchQueue(label: "KVOMediatorTests.model.lane")
    private let gate = DispatchSemaphore(value: 0)

    init() {
        hold()
    }

    deinit {
        gate.signal()
    }

    /// Runs everything waiting on the queue, then holds it again.
    func run() {
        gate.signal()
        queue.sync {}
        hold()
    }

    /// Queues a job that blocks the queue until the next `run()`, and returns once it runs.
    private func hold() {
        let (gate, started) = (gate, DispatchSemaphore(value: 0))
        queue.async {
            started.signal()
            gate.wait()
        }
        started.wait()
    }
}
