import Foundation

/// Every broken contract the soak sees: counted, and the first few kept with what happened.
///
/// Reported from any thread, callbacks included; a report is rare (it is a failure), so one lock is enough.
final class Violations: @unchecked Sendable {  // `count` and `examples` are guarded by `lock`
    static let shared = Violations()

    private let lock = NSLock()
    private var count = 0
    private var examples: [String] = []
    private let kept = 20

    /// Records a violation; the first ones are also printed at once, so that a run stopped by the
    /// watchdog afterwards still shows them.
    func report(_ message: @autoclosure () -> String) {
        let text = message()
        let isNew = lock.withLock {
            count += 1
            guard examples.count < kept else { return false }
            examples.append(text)
            return true
        }
        if isNew { FileHandle.standardError.write(Data("violation: \(text)\n".utf8)) }
    }

    /// The number of violations and the first ones reported.
    var summary: (count: Int, examples: [String]) {
        lock.withLock { (count, examples) }
    }
}
