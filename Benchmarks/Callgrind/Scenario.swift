/// One measured operation: `run(n)` builds what the operation needs, then performs it n times.
///
/// Scripts/callgrind.sh runs each scenario at two counts and divides the difference of the two
/// instruction totals by the difference of the counts, so the setup, the first iteration's one-time
/// costs (metadata, caches) and the teardown cancel out. A loop body therefore holds exactly one
/// operation, and every set stores a new value (Observation skips an equal one).
struct Scenario: Sendable {
    /// `<metric>.<implementation>`, e.g. `notify_1.ours`.
    let name: String
    /// callgrind.sh runs this scenario at its counts divided by this: for an operation that may cost a
    /// million instructions, so that a run stays within seconds under valgrind.
    let divisor: Int
    let run: @Sendable (_ iterations: Int) -> Void

    init(_ name: String, divisor: Int = 1, run: @escaping @Sendable (_ iterations: Int) -> Void) {
        self.name = name
        self.divisor = divisor
        self.run = run
    }
}

/// Every scenario, in the order of the table that callgrind.sh prints.
let allScenarios: [Scenario] =
    setScenarios() + getScenarios() + notifyScenarios() + bridgedScenarios() + crowdScenarios() + lifecycleScenarios()
    + streamScenarios() + shapeScenarios() + transactionScenarios() + elementScenarios() + queueDeliveryScenarios()

/// Calls `body` with 1, 2, 3, … `iterations` times: the value each set stores.
@inline(__always)
func forEachNewValue(_ iterations: Int, _ body: (Int) -> Void) {
    var value = 0
    for _ in 0..<iterations {
        value &+= 1
        body(value)
    }
}

/// Consumes a value where the optimiser cannot see it, like the Benchmark library's `blackHole`.
@inline(never)
@_optimize(none)
func blackHole<T>(_ value: T) {}

/// Counts the notifications an observer receives, so that a scenario whose observer stopped being
/// called fails instead of reporting a cost. Its `record` stands where the benchmark suite's
/// callbacks call `blackHole`.
final class Received: @unchecked Sendable {  // used by one thread at a time
    private(set) var count = 0
    private var last: Int?

    @inline(never)
    func record(_ value: Int?) {
        count &+= 1
        last = value
    }

    /// Traps unless exactly `expected` notifications arrived.
    func expect(_ expected: Int) {
        precondition(count == expected, "\(count) notifications arrived, \(expected) expected")
    }
}
