import KVOMediator
import Observation
import OpenCombine

// stream_set_await: one set, then the stream's iterator returns the new value from `next()`.
// - ours: `values(for: \.x)`;
// - observation: `Observations { model.x }`;
// - opencombine: an `AsyncStream` fed by a `$x.sink`;
// - asyncstream: an `AsyncStream` fed directly, no observation at all (the floor).
// Each runs on one thread (`InlineExecutor`) and checks that it received every value it set.
// stream_wake_suspended: the same streams, each set made while the consumer waits in `next()`
// (Models/SuspendedConsumer.swift).

func streamScenarios() -> [Scenario] {
    [
        Scenario("stream_set_await.ours") { iterations in
            InlineExecutor.run {
                let model = Counter()
                do {
                    var values = try model.values(for: \.x).makeAsyncIterator()
                    await expect(values.next(), 0)
                    var value = 0
                    for _ in 0..<iterations {
                        value &+= 1
                        model.x = value
                        await expect(values.next(), value)
                    }
                } catch {
                    fatalError("stream_set_await.ours: \(error)")
                }
            }
        },
        Scenario("stream_set_await.observation") { iterations in
            InlineExecutor.run {
                let model = ObservationCounter()
                var values = Observations { model.x }.makeAsyncIterator()
                await expect(values.next(), 0)
                var value = 0
                for _ in 0..<iterations {
                    value &+= 1
                    model.x = value
                    await expect(values.next(), value)
                }
            }
        },
        Scenario("stream_set_await.opencombine") { iterations in
            InlineExecutor.run {
                let model = CombineCounter()
                let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                let cancellable = model.$x.sink { continuation.yield($0) }
                var values = stream.makeAsyncIterator()
                await expect(values.next(), 0)
                var value = 0
                for _ in 0..<iterations {
                    value &+= 1
                    model.x = value
                    await expect(values.next(), value)
                }
                withExtendedLifetime(cancellable) {}
            }
        },
        Scenario("stream_wake_suspended.ours", run: WakeSuspended.ours),
        Scenario("stream_wake_suspended.observation", run: WakeSuspended.observation),
        Scenario("stream_wake_suspended.opencombine", run: WakeSuspended.openCombine),
        Scenario("stream_wake_suspended.asyncstream", run: WakeSuspended.asyncStream),
        Scenario("stream_set_await.asyncstream") { iterations in
            InlineExecutor.run {
                let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
                var values = stream.makeAsyncIterator()
                var value = 0
                for _ in 0..<iterations {
                    value &+= 1
                    continuation.yield(value)
                    await expect(values.next(), value)
                }
            }
        },
    ]
}

/// Traps unless a stream produced `expected`: a scenario that measured nothing must not report a cost.
@inline(__always)
private func expect(_ received: Int?, _ expected: Int) {
    precondition(received == expected, "expected \(expected), received \(String(describing: received))")
}
