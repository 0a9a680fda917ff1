/// Streams of the changes of a property of every element of a collection.
extension KeyValueObservable {
    /// An asynchronous sequence of the records of `keyPath` of every element of the array at `collection`,
    /// as ``observe(each:keyPath:options:file:line:changeHandler:)-(KeyPath<Self,[Element]>,_,_,_,_,_)``
    /// delivers them.
    ///
    /// ```swift
    /// for await change in try album.changes(forEach: \.tracks, keyPath: \.title, options: [.new]) {
    ///     print(change.kind, change.indexes ?? [], change.newValue ?? [])
    /// }
    /// ```
    ///
    /// The observation ends when the sequence and its iterator are gone, when the consuming task is
    /// cancelled, or when this object deinitialises (which finishes the sequence).
    ///
    /// - Parameters:
    ///   - collection: The array of the elements to observe.
    ///   - keyPath: What to observe on each element.
    ///   - options: What each record carries (for the elements' values).
    ///   - buffering: What the sequence keeps while its consumer is busy.
    ///   - file: The file named as where the registration was made (in ``KVOTrace``): the caller's, by
    ///     default.
    ///   - line: The line named with `file`: the caller's, by default.
    /// - Returns: The sequence of records.
    /// - Throws: ``KVOError`` when `collection` reads no observable property.
    @inlinable
    public func changes<Element: KeyValueObservable & SendableMetatype, Value: Sendable>(
        forEach collection: KeyPath<Self, [Element]>,
        keyPath: KeyPath<Element, Value>,
        options: KVOOptions = [.new],
        buffering: KVOBufferingPolicy = .unbounded,
        file: StaticString = #fileID,
        line: UInt = #line
    ) throws(KVOError) -> KVOAsyncSequence<KVOChange<[Value]>> where Self: SendableMetatype {
        try _elementChanges(collection, keyPath, options, buffering, ordered: true, (file, line), elements: { $0 })
    }

    /// ``changes(forEach:keyPath:options:buffering:file:line:)-(KeyPath<Self,[Element]>,_,_,_,_,_)`` for the
    /// elements of a set (with no indexes).
    @inlinable
    public func changes<Element: KeyValueObservable & Hashable & SendableMetatype, Value: Sendable>(
        forEach collection: KeyPath<Self, Set<Element>>,
        keyPath: KeyPath<Element, Value>,
        options: KVOOptions = [.new],
        buffering: KVOBufferingPolicy = .unbounded,
        file: StaticString = #fileID,
        line: UInt = #line
    ) throws(KVOError) -> KVOAsyncSequence<KVOChange<[Value]>> where Self: SendableMetatype {
        try _elementChanges(
            collection,
            keyPath,
            options,
            buffering,
            ordered: false,
            (file, line),
            elements: { Array($0) }
        )
    }

    @inlinable
    func _elementChanges<Elements, Element: KeyValueObservable & SendableMetatype, Value: Sendable>(
        _ collection: KeyPath<Self, Elements>,
        _ keyPath: KeyPath<Element, Value>,
        _ options: KVOOptions,
        _ buffering: KVOBufferingPolicy,
        ordered: Bool,
        _ site: (file: StaticString, line: UInt),
        elements: @escaping @Sendable (Elements) -> [Element]
    ) throws(KVOError) -> KVOAsyncSequence<KVOChange<[Value]>> where Self: SendableMetatype {
        let source = StreamSource<KVOChange<[Value]>>(policy: buffering)
        let weakSource = WeakReference(source)
        let token = try _observeElements(
            collection,
            keyPath: keyPath,
            options: options,
            ordered: ordered,
            site: site,
            form: .changeStream,
            elements: elements,
            onObjectDeinit: { weakSource.object?.finish() },
            deliver: { _, change in weakSource.object?.yield(change) }
        )
        source.attach(token.info)
        source.keep(token)
        // (An `.initial` record was yielded before the start: it comes first.)
        source.start(initial: nil)
        return KVOAsyncSequence(source: source)
    }
}
