import KVOMediator

/// A stream of the world and the iterator that keeps its registration alive, until it is drained:
/// its consuming task is cancelled, which ends the registration, and everything buffered is read.
final class ModelStreamDrain: @unchecked Sendable {  // the iterator is used by one task at a time
    private let drainAll: @Sendable () async -> [ModelRecord]

    init<Element: Sendable>(
        _ sequence: KVOAsyncSequence<Element>,
        convert: @escaping @Sendable (Element) -> ModelRecord
    ) {
        let holder = IteratorHolder(sequence.makeAsyncIterator())
        drainAll = {
            var iterator = holder.iterator
            var records: [ModelRecord] = []
            while let element = await iterator.next() { records.append(convert(element)) }
            return records
        }
    }

    /// Ends the stream and returns every element it had received, in order.
    func drain() async -> [ModelRecord] {
        let drainAll = drainAll
        let consumer = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await drainAll()
        }
        return await consumer.value
    }
}

/// Holds an iterator for the task that drains it.
private final class IteratorHolder<Element: Sendable>: @unchecked Sendable {  // read by one task
    let iterator: KVOAsyncSequence<Element>.Iterator

    init(_ iterator: KVOAsyncSequence<Element>.Iterator) {
        self.iterator = iterator
    }
}
