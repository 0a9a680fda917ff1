import KVOMediator
import Observation
import OpenCombine
import Synchronization

// stream_wake_suspended: the consumer is already suspended in the stream iterator's `next()` when each
// set happens, so that the set wakes it (stream_set_await measures the other case: the value is
// buffered before `next()` is called). Both tasks run on one thread, one job after another
// (`InlineExecutor`): the consumer waits, the producer sets and yields, the consumer takes the value
// and waits again. The producer checks before each set that the consumer took the last value, so the
// consumer is waiting then: on one thread, nothing else runs between its `next()` and the set.

/// What the consumer has taken so far, read by the producer.
private final class Progress: Sendable {
    let taken = Atomic(-1)
}

/// Sets `count` values (1, 2, …) through `set`, each while a consumer of `makeValues()` is suspended in
/// `next()`, on this thread; traps unless the consumer received each value (after `initial`, the value
/// the stream gives first, if it gives one).
func setWhileTheConsumerWaits<Values: AsyncIteratorProtocol>(
    _ count: Int,
    initial: Int?,
    values makeValues: @escaping @Sendable () -> Values,
    set: @escaping @Sendable (Int) -> Void
) where Values.Element == Int, Values.Failure == Never {
    InlineExecutor.run {
        let progress = Progress()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var values = makeValues()
                if let initial { received(await values.next(isolation: nil), expected: initial) }
                progress.taken.store(0, ordering: .relaxed)
                for value in 1...count {
                    received(await values.next(isolation: nil), expected: value)
                    progress.taken.store(value, ordering: .relaxed)
                }
            }
            group.addTask {
                // (Until the consumer has taken the initial value and waits for the next.)
                while progress.taken.load(ordering: .relaxed) != 0 { await Task.yield() }
                for value in 1...count {
                    precondition(progress.taken.load(ordering: .relaxed) == value - 1, "the consumer was not waiting")
                    set(value)
                    await Task.yield()
                }
            }
        }
    }
}

/// Traps unless a stream produced `expected`: a run that measured nothing must not report a cost.
@inline(__always)
private func received(_ value: Int?, expected: Int) {
    precondition(value == expected, "expected \(expected), received \(String(describing: value))")
}

/// stream_wake_suspended for each implementation: `count` sets of a new model, each waking the consumer.
enum WakeSuspended {
    /// ours: `values(for: \.x)`.
    static func ours(_ count: Int) {
        let model = Counter()
        setWhileTheConsumerWaits(count, initial: 0) {
            do {
                return try model.values(for: \.x).makeAsyncIterator()
            } catch {
                fatalError("stream_wake_suspended ours: \(error)")
            }
        } set: { model.x = $0 }
    }

    /// observation: `Observations { model.x }`.
    static func observation(_ count: Int) {
        let model = ObservationCounter()
        setWhileTheConsumerWaits(count, initial: 0) {
            Observations { model.x }.makeAsyncIterator()
        } set: { model.x = $0 }
    }

    /// opencombine: an `AsyncStream` fed by a `$x.sink`.
    static func openCombine(_ count: Int) {
        let model = CombineCounter()
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let cancellable = model.$x.sink { continuation.yield($0) }
        setWhileTheConsumerWaits(count, initial: 0) {
            stream.makeAsyncIterator()
        } set: { model.x = $0 }
        withExtendedLifetime(cancellable) {}
    }

    /// asyncstream: an `AsyncStream` fed directly (the floor).
    static func asyncStream(_ count: Int) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        setWhileTheConsumerWaits(count, initial: nil) {
            stream.makeAsyncIterator()
        } set: { continuation.yield($0) }
    }
}
