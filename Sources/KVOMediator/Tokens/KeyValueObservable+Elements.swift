/// Observing a property of every element of a collection, with a token.
extension KeyValueObservable {
    /// Observes `keyPath` of every element of the array at `collection`, as elements join and leave it,
    /// until the returned token is invalidated or released.
    ///
    /// ```swift
    /// let token = try playlist.observe(each: \.songs, keyPath: \.title, options: [.old, .new]) { playlist, change in
    ///     // A song renamed: .setting at its index, [old title] → [new title].
    ///     // Songs added or removed: .insertion / .removal at their indexes, with their titles.
    /// }
    /// ```
    ///
    /// The records are of the values of `keyPath`, as arrays (their `keyPath` is `collection`):
    /// - a change of an element's property: `.setting` at the element's current indexes (several when the
    ///   array holds it more than once, with one old and one new value for each), with `.prior` a prior
    ///   record first;
    /// - a mutation through `mutableArrayValue(for:)` (or announced by hand): its kind and indexes, the
    ///   values of the elements removed (`oldValue`) and inserted (`newValue`);
    /// - a set of the whole array: `.setting` of the values of every old and every new element;
    /// - `.initial`: the values of every element now.
    ///
    /// An element is observed while the array holds it: once it has left, its changes deliver nothing,
    /// and the observation keeps no strong reference to it. Elements are told apart by identity.
    ///
    /// - Parameters:
    ///   - collection: The array of the elements to observe.
    ///   - keyPath: What to observe on each element.
    ///   - options: What each record carries (for the elements' values).
    ///   - file: The file named as where the registration was made (in ``KVOController/debugDescription`` and
    ///     ``KVOTrace``): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    ///   - changeHandler: Called with this object and each record.
    /// - Returns: The token; the observation ends when it is invalidated or released.
    /// - Throws: ``KVOError`` when `collection`, or `keyPath` on an element, reads no observable property.
    /// - Complexity: A change of an element costs a look-up of its indexes; a membership change, the
    ///   registrations of the elements that join or leave (and the next element change re-indexes once).
    public func observe<Element: KeyValueObservable & SendableMetatype, Value>(
        each collection: KeyPath<Self, [Element]>,
        keyPath: KeyPath<Element, Value>,
        options: KVOOptions = [.new],
        file: StaticString = #fileID,
        line: UInt = #line,
        changeHandler: @escaping @Sendable (Self, KVOChange<[Value]>) -> Void
    ) throws(KVOError) -> KVOObservation where Self: SendableMetatype {
        try _observeElements(
            collection,
            keyPath: keyPath,
            options: options,
            ordered: true,
            site: (file, line),
            elements: { $0 },
            deliver: changeHandler
        )
    }

    /// Observes `keyPath` of every element of the set at `collection`: as
    /// ``observe(each:keyPath:options:file:line:changeHandler:)-(KeyPath<Self,[Element]>,_,_,_,_,_)``
    /// does for an array, with no indexes (a set mutation is an `.insertion` or a `.removal` of the
    /// elements' values, in no particular order).
    public func observe<Element: KeyValueObservable & Hashable & SendableMetatype, Value>(
        each collection: KeyPath<Self, Set<Element>>,
        keyPath: KeyPath<Element, Value>,
        options: KVOOptions = [.new],
        file: StaticString = #fileID,
        line: UInt = #line,
        changeHandler: @escaping @Sendable (Self, KVOChange<[Value]>) -> Void
    ) throws(KVOError) -> KVOObservation where Self: SendableMetatype {
        try _observeElements(
            collection,
            keyPath: keyPath,
            options: options,
            ordered: false,
            site: (file, line),
            elements: { Array($0) },
            deliver: changeHandler
        )
    }

    func _observeElements<Elements, Element: KeyValueObservable & SendableMetatype, Value>(
        _ collection: KeyPath<Self, Elements>,
        keyPath: KeyPath<Element, Value>,
        options: KVOOptions,
        ordered: Bool,
        site: (file: StaticString, line: UInt),
        elements: @escaping @Sendable (Elements) -> [Element],
        deliver: @escaping @Sendable (Self, KVOChange<[Value]>) -> Void
    ) throws(KVOError) -> KVOObservation where Self: SendableMetatype {
        let observation = ElementObservation<Self, Element, Value>(
            keyPath: keyPath,
            options: options,
            ordered: ordered,
            site: site,
            deliver: deliver
        )
        try observation.start(on: self, collection, elements: elements)
        guard let info = observation.collectionInfo else { preconditionFailure("KVOMediator: a started observation") }
        return KVOObservation(info: info, companion: observation)
    }
}
