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
    /// - Complexity: A change of an element costs the same whatever the collection's size; a membership
    ///   change, the registrations of the elements that join or leave (and the next element change
    ///   re-indexes once).
    @inlinable
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
    /// does for an array, with no indexes (a set mutation is an `.insertion`, a `.removal` or a `.replacement`
    /// of the elements' values, in no particular order).
    @inlinable
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

    /// Observes `keyPath` of the elements of `collection` (`elements` lists them), calling `deliver` with
    /// each record (`deliverChangeOf`, when given, with the record of an element's change and the member whose
    /// change it is). Built here, where the types are known, so that the records are made and delivered with
    /// no generic code: `ElementMembers` keeps the members and their registrations. `prepare` is given the
    /// collection's registration before it starts.
    @inlinable
    func _observeElements<Elements, Element: KeyValueObservable & SendableMetatype, Value>(
        _ collection: KeyPath<Self, Elements>,
        keyPath: KeyPath<Element, Value>,
        options: KVOOptions,
        ordered: Bool,
        site: (file: StaticString, line: UInt),
        form: _RegistrationForm = .token,
        observer: Any.Type? = nil,
        elements: @escaping @Sendable (Elements) -> [Element],
        onObjectDeinit: (@Sendable () -> Void)? = nil,
        prepare: ((KVOInfo) -> Void)? = nil,
        deliverChangeOf: (@Sendable (Self, KVOChange<[Value]>, ObjectIdentifier) -> Void)? = nil,
        deliver: @escaping @Sendable (Self, KVOChange<[Value]>) -> Void
    ) throws(KVOError) -> KVOObservation where Self: SendableMetatype {
        let members = ElementMembers(ordered: ordered)
        // (Held weakly through a pin, not `weak`: a `weak` capture is a boxed variable checked for exclusive
        // access at each read, and gives the members a side table, which sends each retain and release of
        // them to the runtime's slow path.)
        let weakMembers = WeakReference(members)
        let arrays = _ElementRecordArrays<Value>()
        let elementOptions = options.subtracting(.initial)
        let paths = _ElementKeyPaths(collection, keyPath)
        // An element's change: its record at its indexes now, in the collection registration's gate.
        members.subscribeElement = { element, member throws(KVOError) in
            let element = KnownClass.cast(element, to: Element.self)
            let made = _RegistrationSites.enter(site.file, site.line, form, observer: observer)
            defer { _RegistrationSites.leave(made) }
            // (Whole values: a change of an element's collection-typed property is its whole new value.)
            let info: TypedKVOInfo<Element, Value> = KVODispatcher.shared._makeRegistration(
                element,
                reader: .typed(paths.keyPath),
                options: elementOptions,
                owner: nil,
                box: _HandlerBox { (_: Element, change: KVOChange<Value>) in
                    guard let members = weakMembers.object else { return }
                    members.deliverChange(of: member) { place, collectionInfo, object in
                        // One value each (several for an element held more than once), in the arrays the last
                        // record gave back when no other change holds them.
                        var pair = _ElementRecordArrays<Value>.Pair()
                        let reused = arrays.take(into: &pair)
                        var record = KVOChange<[Value]>(
                            kind: .setting,
                            oldValue: nil,
                            newValue: nil,
                            indexes: place.indexes,
                            isPrior: change.isPrior,
                            holder: nil
                        )
                        if let old = change.oldValue {
                            _ElementRecordArrays.refill(&pair.old, with: old, count: place.count)
                            record.oldValue = _ElementRecordArrays.moveOut(&pair.old)
                        }
                        if let new = change.newValue {
                            _ElementRecordArrays.refill(&pair.new, with: new, count: place.count)
                            record.newValue = _ElementRecordArrays.moveOut(&pair.new)
                        }
                        defer {
                            if reused {
                                if record.oldValue != nil { swap(&pair.old, &record.oldValue!) }
                                if record.newValue != nil { swap(&pair.new, &record.newValue!) }
                                arrays.giveBack(&pair)
                            }
                        }
                        // (The collection's registration lent to the record for the call, as to the records a
                        // delivery builds: its gate holds it.)
                        KVOChange._lending(collectionInfo, to: &record) { record in
                            let object = KnownClass.cast(object, to: Self.self)
                            if let deliverChangeOf {
                                deliverChangeOf(object, record, ObjectIdentifier(member))
                            } else {
                                deliver(object, record)
                            }
                        }
                    }
                }
            )
            info._wantWholeValues()
            return try element._observe(info)
        }
        let values: @Sendable ([Element]) -> [Value] = { elements in
            untracked { elements.map { $0[keyPath: paths.keyPath] } }
        }
        // A change of the collection: the members brought up to date, then the record of the values.
        let collectionOptions = options.intersection(.prior).union([.old, .new])
        let made = _RegistrationSites.enter(site.file, site.line, form, observer: observer)
        let collectionInfo: TypedKVOInfo<Self, Elements> = KVODispatcher.shared._makeRegistration(
            self,
            reader: .typed(paths.collection),
            options: collectionOptions,
            owner: nil,
            box: _HandlerBox { (object: Self, change: KVOChange<Elements>) in
                guard let members = weakMembers.object else { return }
                let removed = change.oldValue.map(elements)
                let inserted = change.newValue.map(elements)
                if change.isPrior {
                    let old = options.contains(.old) ? removed.map(values) : nil
                    let record = KVOChange<[Value]>(
                        kind: change.kind,
                        oldValue: old,
                        indexes: change.indexes,
                        isPrior: true,
                        keyPath: paths.collection
                    )
                    return deliver(object, record)
                }
                guard
                    members.collectionChanged(
                        change.kind,
                        removed: removed?.map { $0 as AnyObject } ?? [],
                        inserted: inserted?.map { $0 as AnyObject } ?? [],
                        indexes: change.indexes
                    )
                else { return }
                let record = KVOChange<[Value]>(
                    kind: change.kind,
                    oldValue: options.contains(.old) ? removed.map(values) : nil,
                    newValue: options.contains(.new) ? inserted.map(values) : nil,
                    indexes: ordered ? change.indexes : nil,
                    keyPath: paths.collection
                )
                deliver(object, record)
            }
        )
        // (When the object deinitialises, its elements' registrations end too: no token or controller need
        // be let go for them to.)
        collectionInfo._onObjectDeinit {
            weakMembers.object?.end()
            onObjectDeinit?()
        }
        let token: KVOObservation
        prepare?(collectionInfo)
        do {
            defer { _RegistrationSites.leave(made) }
            token = try _observe(collectionInfo)
        }
        let started = try members.start(collection: token) {
            untracked { elements(self[keyPath: paths.collection]).map { $0 as AnyObject } }
        }
        let current = started.map { KnownClass.cast($0, to: Element.self) }
        if options.contains(.initial) {
            let record = KVOChange<[Value]>(
                newValue: options.contains(.new) ? values(current) : nil,
                keyPath: collection
            )
            members.deliver { deliver(self, record) }
        }
        return KVOObservation(info: token.info, companion: members)
    }
}
