/// How a value stream buffers elements its consumer has not taken yet.
public enum KVOBufferingPolicy: Sendable, Hashable {
    /// Keep every element, in order: a slow consumer sees every change, and memory grows meanwhile.
    case unbounded
    /// Keep only the newest element: a slow consumer skips to the current value (a state stream).
    case latest
}

/// An asynchronous sequence of the values (or change records) of an observed key path.
///
/// Made by ``KeyValueObservable/values(for:buffering:)`` and ``KeyValueObservable/changes(for:options:buffering:)``.
/// It is single-pass, like `AsyncStream`: iterate it once. The observation ends when the observed
/// object deinitialises (the sequence then finishes), when the consuming task is cancelled, or when
/// the iterator (or the unused sequence) is released.
public struct KVOAsyncSequence<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = Never

    let source: StreamSource<Element>

    public func makeAsyncIterator() -> Iterator {
        Iterator(lifetime: IteratorLifetime(source: source))
    }

    /// The iterator of a ``KVOAsyncSequence``.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Failure = Never

        let lifetime: IteratorLifetime<Element>

        public mutating func next() async -> Element? {
            await lifetime.source.next()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await lifetime.source.next()
        }
    }
}

extension KeyValueObservable {
    /// The values of `keyPath`: the current one first, then the new value after each change.
    ///
    /// ```swift
    /// for await city in try person.values(for: \.address.city) {
    ///     print(city)   // "London", then each new city
    /// }
    /// ```
    ///
    /// RACObserve's contract: the subscription is in place before the initial value is read, so a change
    /// made after `values(for:)` returns, or on the same thread, is never lost. A set racing with this
    /// call on another thread (one that checked for observers before the subscription) may be seen
    /// twice or reflected only in the initial value; give the model one writer at a time to rule it out.
    ///
    /// - Parameters:
    ///   - keyPath: What to observe: a property, a chain or a computed property.
    ///   - buffering: `.unbounded` (the default) keeps every value for a slow consumer; `.latest`
    ///     keeps only the newest.
    /// - Returns: A single-pass sequence that finishes when the object deinitialises.
    /// - Throws: ``KVOError`` when `keyPath` reads no observable property.
    /// - Important: A key path is read when observed, to find what it depends on: `\.address!.city`
    ///   traps there while `address` is nil, even without `.initial`. Observe `\.address?.city`.
    public func values<Value: Sendable>(
        for keyPath: KeyPath<Self, Value>,
        buffering: KVOBufferingPolicy = .unbounded
    ) throws(KVOError) -> KVOAsyncSequence<Value> {
        let source = StreamSource<Value>(policy: buffering)
        let value = try register(keyPath, options: [.new], wholeValues: true, source: source) { change in
            change.newValue!
        }
        source.start(initial: value)
        return KVOAsyncSequence(source: source)
    }

    /// The change records of `keyPath`, in order, with the options asked for.
    ///
    /// ```swift
    /// for await change in try playlist.changes(for: \.songs, options: [.old, .new]) {
    ///     print(change.kind, change.indexes ?? [])
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: What to observe.
    ///   - options: What each record carries; with `.initial` the first record is the initial one.
    ///   - buffering: `.unbounded` (the default) keeps every record; `.latest` keeps only the newest.
    /// - Returns: A single-pass sequence that finishes when the object deinitialises.
    /// - Throws: ``KVOError`` when `keyPath` reads no observable property.
    /// - Important: A key path is read when observed, to find what it depends on: `\.address!.city`
    ///   traps there while `address` is nil, even without `.initial`. Observe `\.address?.city`.
    public func changes<Value: Sendable>(
        for keyPath: KeyPath<Self, Value>,
        options: KVOOptions = [.new],
        buffering: KVOBufferingPolicy = .unbounded
    ) throws(KVOError) -> KVOAsyncSequence<KVOChange<Value>> {
        let source = StreamSource<KVOChange<Value>>(policy: buffering)
        let value = try register(keyPath, options: options, wholeValues: false, source: source) { $0 }
        let initial =
            options.contains(.initial)
            ? KVOChange<Value>(newValue: options.contains(.new) ? value : nil, keyPath: keyPath) : nil
        source.start(initial: initial)
        return KVOAsyncSequence(source: source)
    }

    private func register<Value, Element: Sendable>(
        _ keyPath: KeyPath<Self, Value>,
        options: KVOOptions,
        wholeValues: Bool,
        source: StreamSource<Element>,
        transform: @escaping @Sendable (KVOChange<Value>) -> Element
    ) throws(KVOError) -> Value {
        let info = KVODispatcher.shared.makeRegistration(
            self,
            reader: .typed(keyPath),
            options: options.subtracting(.initial),
            owner: nil,
            box: _HandlerBox<Self, Value> { [weak source] _, change in source?.yield(transform(change)) },
            prepare: { info in
                info.wantsWholeValues = wholeValues
                source.attach(info)
            },
            onObjectDeinit: { [weak source] in source?.finish() }
        )
        var value: Value?
        try KVODispatcher.shared.start(info, on: self) { value = $0 }
        return value!  // given whenever the start succeeds
    }
}
