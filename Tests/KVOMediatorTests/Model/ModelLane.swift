import Dispatch

/// The queue the world's coalescing registrations deliver to (`ObserveForm.coalesced`): held busy between
/// `deliverCoalesced` operations, so that their records wait, and merge, as they do behind a busy queue.
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

    private func hold() {
        let gate = gate
        queue.async { gate.wait() }
    }
}
