import Dispatch
import KVOMediator

/// A model changed far more often than its observers can show it.
final class Importer: KeyValueObservable, @unchecked Sendable {  // changed by one thread at a time
    let kvoRegistrar = KVORegistrar()
    @Observed var progress = 0
    @Observed var rows: [Int] = []
    @Observed var status = "idle"

    /// Whether the progress is even: re-read after each change of it.
    var isEven: Bool { progress % 2 == 0 }
}

/// A serial queue held busy until `release()`, so that deliveries to it wait.
final class HeldQueue: Sendable {
    let queue = DispatchQueue(label: "KVOMediatorTests.held")
    private let gate = DispatchSemaphore(value: 0)

    init() {
        let gate = gate
        queue.async { gate.wait() }
    }

    /// Lets the queue run, and returns once everything queued so far has run.
    func releaseAndDrain() {
        gate.signal()
        queue.sync {}
    }
}
