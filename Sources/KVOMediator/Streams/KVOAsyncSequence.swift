/// How a value stream buffers elements its consumer has not taken yet.
public enum KVOBufferingPolicy: Sendable, Hashable {
    /// Keep every element, in order: a slow consumer sees every change, and memory grows meanwhile.
    case unbounded
    /// Keep only the newest element: a slow consumer skips to the current value (a state stream).
    case latest
}

/// An asynchronous sequence of the values (or change records) of an observed key path.
///
/// Made by ``KeyValueObservable/values(for:buffering:file:line:)`` and ``KeyValueObservable/changes(for:options:buffering:file:line:)``.
/// It is single-pass, like `AsyncStream`: iterate it once. The observation ends when the observed
/// object deinitialises (the sequence then finishes), when the consuming task is cancelled, or when
/// the iterator (or the unused sequence) is released.
public struct KVOAsyncSequence<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = Never

    @usableFromInline
    let source: StreamSource<Element>

    @usableFromInline
    init(source: StreamSource<Element>) {
        self.source = source
    }

    @inlinable
    public func makeAsyncIterator() -> Iterator {
        Iterator(lifetime: IteratorLifetime(source: source))
    }

    /// The iterator of a ``KVOAsyncSequence``.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Failure = Never

        @usableFromInline
        let lifetime: IteratorLifetime<Element>

        @usableFromInline
        init(lifetime: IteratorLifetime<Element>) {
            self.lifetime = lifetime
        }

        @inlinable
        public mutating func next() async -> Element? {
            await lifetime.source.next()
        }

        @inlinable
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
    ///   - file: The file named as where the registration was made (in ``KVOController/debugDescription`` and
    ///     ``KVOTrace``): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    /// - Returns: A single-pass sequence that finishes when the object deinitialises.
    /// - Throws: ``KVOError`` when `keyPath` reads no observable property.
    /// - Important: A key path is read when observed, to find what it depends on: `\.address!.city`
    ///   traps there while `address` is nil, even without `.initial`. Observe `\.address?.city`.
    @inlinable
    public func values<Value: Sendable>(
        for keyPath: KeyPath<Self, Value>,
        buffering: KVOBufferingPolicy = .unbounded,
        file: StaticString = #fileID,
        line: UInt = #line
    ) throws(KVOError) -> KVOAsyncSequence<Value> {
        let site = _RegistrationSites.enter(file, line, .valueStream, observer: nil)
        defer { _RegistrationSites.leave(site) }
        // The handler is made here, where the types are concrete (see `StreamSource`).
        let source = StreamSource<Value>(policy: buffering)
        let weakSource = WeakReference(source)
        let box = _HandlerBox<Self, Value> { _, change in weakSource.object?.yield(change.newValue!) }
        let value = try _registerStream(
            keyPath,
            options: [.new],
            wholeValues: true,
            source: source,
            weakSource: weakSource,
            box: box
        )
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
    ///   - file: The file named as where the registration was made (in ``KVOController/debugDescription`` and
    ///     ``KVOTrace``): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    /// - Returns: A single-pass sequence that finishes when the object deinitialises.
    /// - Throws: ``KVOError`` when `keyPath` reads no observable property.
    /// - Important: A key path is read when observed, to find what it depends on: `\.address!.city`
    ///   traps there while `address` is nil, even without `.initial`. Observe `\.address?.city`.
    @inlinable
    public func changes<Value: Sendable>(
        for keyPath: KeyPath<Self, Value>,
        options: KVOOptions = [.new],
        buffering: KVOBufferingPolicy = .unbounded,
        file: StaticString = #fileID,
        line: UInt = #line
    ) throws(KVOError) -> KVOAsyncSequence<KVOChange<Value>> {
        let site = _RegistrationSites.enter(file, line, .changeStream, observer: nil)
        defer { _RegistrationSites.leave(site) }
        let source = StreamSource<KVOChange<Value>>(policy: buffering)
        let weakSource = WeakReference(source)
        let box = _HandlerBox<Self, Value> { _, change in weakSource.object?.yield(change) }
        let value = try _registerStream(
            keyPath,
            options: options,
            wholeValues: false,
            source: source,
            weakSource: weakSource,
            box: box
        )
        let initial =
            options.contains(.initial)
            ? KVOChange<Value>(newValue: options.contains(.new) ? value : nil, keyPath: keyPath) : nil
        source.start(initial: initial)
        return KVOAsyncSequence(source: source)
    }

    /// Registers a stream's handler (`box`, which holds `source` weakly) and reads the current value.
    @usableFromInline
    func _registerStream<Value, Element: Sendable>(
        _ keyPath: KeyPath<Self, Value>,
        options: KVOOptions,
        wholeValues: Bool,
        source: StreamSource<Element>,
        weakSource: WeakReference<StreamSource<Element>>,
        box: _HandlerBox<Self, Value>
    ) throws(KVOError) -> Value {
        let info = KVODispatcher.shared.makeRegistration(
            self,
            reader: .typed(keyPath),
            options: options.subtracting(.initial),
            owner: nil,
            box: box,
            prepare: { info in
                info.wantsWholeValues = wholeValues
                source.attach(info)
            },
            onObjectDeinit: { weakSource.object?.finish() }
        )
        var value: Value?
        try KVODispatcher.shared.start(info, on: self) { value = $0 }
        return value!  // given whenever the start succeeds
    }
}
