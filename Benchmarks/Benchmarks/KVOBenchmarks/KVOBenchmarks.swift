import Benchmark

// Every benchmark is named "<metric> <implementation> x<operations per iteration>", e.g.
// "notify_1 ours x1000": run.sh divides each iteration's median by that count to get a cost per
// operation, and compares the implementations of one metric with each other.
//
// Implementations: ours (KVOMediator through a KVOController), oursToken (reserved for the token
// API), Observation, OpenCombine, didSetClosure and plainStored (the floors), serial/parallel
// (two_threads).

let benchmarks: @Sendable () -> Void = {
    registerSetBenchmarks()
    registerNotifyBenchmarks()
    registerShapeBenchmarks()
    registerBridgedBenchmarks()
    registerKeyPathBenchmarks()
    registerLifecycleBenchmarks()
    registerStreamBenchmarks()
    registerMemoryBenchmarks()
    registerThreadBenchmarks()
    registerTransactionBenchmarks()
    registerElementBenchmarks()
}

/// The name run.sh parses: metric, implementation, operations per iteration.
func benchmarkName(_ metric: String, _ implementation: String, operations: Int) -> String {
    "\(metric) \(implementation) x\(operations)"
}

/// Times in nanoseconds per iteration, malloc counts; short runs, so the whole suite takes a few minutes.
func configuration(
    warmupIterations: Int = 3,
    maxDuration: Duration = .milliseconds(600),
    maxIterations: Int = 10_000,
    extraMetrics: [BenchmarkMetric] = []
) -> Benchmark.Configuration {
    .init(
        // Throughput is only there because the JMH export that run.sh reads requires it.
        metrics: [.wallClock, .throughput, .mallocCountTotal] + extraMetrics,
        timeUnits: .nanoseconds,
        warmupIterations: warmupIterations,
        maxDuration: maxDuration,
        maxIterations: maxIterations
    )
}

/// Registers a benchmark whose fixture is built once, before the first iteration and outside the measurement.
///
/// ```swift
/// register("notify_1", "ours", operations: 1_000, setup: observedCounter()) { _, fixture in … }
/// ```
func register<State>(
    _ metric: String,
    _ implementation: String,
    operations: Int,
    configuration: Benchmark.Configuration = configuration(),
    setup: @autoclosure @escaping () -> State,
    body: @escaping (Benchmark, State) -> Void
) {
    Benchmark(
        benchmarkName(metric, implementation, operations: operations),
        configuration: configuration,
        closure: body,
        setup: { setup() }
    )
}

/// ``register(_:_:operations:configuration:setup:body:)`` for an async body, with an async setup.
func registerAsync<State>(
    _ metric: String,
    _ implementation: String,
    operations: Int,
    configuration: Benchmark.Configuration = configuration(),
    setup: @escaping () async -> State,
    body: @escaping (Benchmark, State) async -> Void
) {
    Benchmark(
        benchmarkName(metric, implementation, operations: operations),
        configuration: configuration,
        closure: body,
        setup: { await setup() }
    )
}
