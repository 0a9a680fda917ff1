import Benchmark
import KVOMediator
import Observation
import OpenCombine

// stream_set_await: one set, then the stream's iterator returns the new value from `next()`.
// - ours: `values(for: \.x)`;
// - Observation: Swift 6.2's `Observations { model.x }`;
// - OpenCombine: an `AsyncStream` fed by a `$x.sink`;
// - asyncStream: an `AsyncStream` fed directly, no observation at all (the floor).
// Each benchmark iterates one stream for its whole run: the setup takes the initial value, and each
// iteration continues where the last one stopped. Iterations run as tasks on Swift's global
// executor, as an app's would.

private let changeCount = 1_000

func registerStreamBenchmarks() {
    let metric = "stream_set_await"

    registerAsync(metric, "ours", operations: changeCount, setup: ourStream) { _, fixture in
        var values = fixture.values
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.x = value
            blackHole(await values.next())
        }
        fixture.counter = value
        fixture.values = values
    }

    registerAsync(metric, "Observation", operations: changeCount, setup: observations) { _, fixture in
        var values = fixture.values
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.x = value
            blackHole(await values.next())
        }
        fixture.counter = value
        fixture.values = values
    }

    registerAsync(metric, "OpenCombine", operations: changeCount, setup: sunkStream) { _, fixture in
        var values = fixture.values
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.x = value
            blackHole(await values.next())
        }
        fixture.counter = value
        fixture.values = values
    }

    registerWakeSuspended()

    registerAsync(metric, "asyncStream", operations: changeCount, setup: directStream) { _, fixture in
        var values = fixture.values
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.yield(value)
            blackHole(await values.next())
        }
        fixture.counter = value
        fixture.values = values
    }
}

/// A model, the iterator of a stream of its values, and what keeps the stream fed.
private final class StreamFixture<Model, Values: AsyncIteratorProtocol> {
    let model: Model
    var values: Values
    var counter = 0
    let retained: [Any]

    init(_ model: Model, values: Values, retaining retained: [Any] = []) {
        self.model = model
        self.values = values
        self.retained = retained
    }
}

private func ourStream() async -> StreamFixture<Counter, KVOAsyncSequence<Int>.Iterator> {
    let model = Counter()
    do {
        var values = try model.values(for: \.x).makeAsyncIterator()
        _ = await values.next()  // the initial value
        return StreamFixture(model, values: values)
    } catch {
        fatalError("stream_set_await ours: \(error)")
    }
}

private func observations() async -> StreamFixture<ObservationCounter, Observations<Int, Never>.Iterator> {
    let model = ObservationCounter()
    var values = Observations { model.x }.makeAsyncIterator()
    _ = await values.next()  // the initial value
    return StreamFixture(model, values: values)
}

private func sunkStream() async -> StreamFixture<CombineCounter, AsyncStream<Int>.Iterator> {
    let model = CombineCounter()
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    let cancellable = model.$x.sink { continuation.yield($0) }
    var values = stream.makeAsyncIterator()
    _ = await values.next()  // the initial value, which a sink receives when it subscribes
    return StreamFixture(model, values: values, retaining: [cancellable])
}

private func directStream() -> StreamFixture<AsyncStream<Int>.Continuation, AsyncStream<Int>.Iterator> {
    let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
    return StreamFixture(continuation, values: stream.makeAsyncIterator())
}

// stream_wake_suspended: the same streams, each set made while the consumer is suspended in `next()`
// (Models/SuspendedConsumer.swift): consumer and producer run on the benchmark's thread, one job after
// another, as in the callgrind scenario. Each iteration makes its model and stream.

private let wakeCount = 10_000

private func registerWakeSuspended() {
    let metric = "stream_wake_suspended"
    register(metric, "ours", operations: wakeCount, setup: ()) { _, _ in WakeSuspended.ours(wakeCount) }
    register(metric, "Observation", operations: wakeCount, setup: ()) { _, _ in WakeSuspended.observation(wakeCount) }
    register(metric, "OpenCombine", operations: wakeCount, setup: ()) { _, _ in WakeSuspended.openCombine(wakeCount) }
    register(metric, "asyncStream", operations: wakeCount, setup: ()) { _, _ in WakeSuspended.asyncStream(wakeCount) }
}
