/// Observing a property of every element of a collection, through a controller.
extension KVOController {
    /// Observes `keyPath` of every element of the array at `collection` of `object`, as elements join and
    /// leave it: FBKVOController's missing to-many observation.
    ///
    /// ```swift
    /// kvoController.observe(playlist, each: \.songs, keyPath: \.title, options: [.old, .new]) {
    ///     view, playlist, change in
    ///     switch change.kind {
    ///     case .setting: view.reloadRows(at: change.indexes)        // a song renamed (or all replaced)
    ///     case .insertion: view.insertRows(at: change.indexes)
    ///     case .removal: view.deleteRows(at: change.indexes)
    ///     case .replacement: view.reloadRows(at: change.indexes)
    ///     }
    /// }
    /// ```
    ///
    /// The records are of the values of `keyPath`, as the token form's
    /// (``KeyValueObservable/observe(each:keyPath:options:file:line:changeHandler:)-(KeyPath<Self,[Element]>,_,_,_,_,_)``)
    /// are: an element's change at its current indexes, a membership change with its kind, indexes and
    /// the values of the elements removed and inserted, a whole set of the array as `.setting`. It ends
    /// with ``unobserve(_:each:keyPath:)``, ``unobserve(_:)`` of `object`, ``unobserveAll()``, the controller
    /// and `object`'s deinit; observing the same collection and key path of `object` again is ignored, as
    /// for any key path.
    ///
    /// - Parameters:
    ///   - object: The object holding the collection; nil does nothing.
    ///   - collection: The array of the elements to observe.
    ///   - keyPath: What to observe on each element.
    ///   - options: What each record carries (for the elements' values).
    ///   - file: The file named as where the registration was made (in ``KVOController/debugDescription`` and
    ///     ``KVOTrace``): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    ///   - block: Called with the observer, the object and each record.
    @inlinable
    public func observe<
        Object: KeyValueObservable & SendableMetatype,
        Element: KeyValueObservable & SendableMetatype,
        Value
    >(
        _ object: Object?,
        each collection: KeyPath<Object, [Element]>,
        keyPath: KeyPath<Element, Value>,
        options: KVOOptions = [.new],
        file: StaticString = #fileID,
        line: UInt = #line,
        block: @escaping @Sendable (Observer, Object, KVOChange<[Value]>) -> Void
    ) {
        guard let object else { return }
        _observeElements(object, collection, keyPath, options, ordered: true, (file, line), elements: { $0 }, block)
    }

    /// Observes `keyPath` of every element of the set at `collection` of `object`: as
    /// ``observe(_:each:keyPath:options:file:line:block:)-(_,KeyPath<Object,[Element]>,_,_,_,_,_)`` does for
    /// an array, with no indexes (values in no particular order).
    @inlinable
    public func observe<
        Object: KeyValueObservable & SendableMetatype,
        Element: KeyValueObservable & Hashable & SendableMetatype,
        Value
    >(
        _ object: Object?,
        each collection: KeyPath<Object, Set<Element>>,
        keyPath: KeyPath<Element, Value>,
        options: KVOOptions = [.new],
        file: StaticString = #fileID,
        line: UInt = #line,
        block: @escaping @Sendable (Observer, Object, KVOChange<[Value]>) -> Void
    ) {
        guard let object else { return }
        _observeElements(
            object,
            collection,
            keyPath,
            options,
            ordered: false,
            (file, line),
            elements: { Array($0) },
            block
        )
    }

    /// Stops observing `keyPath` of the elements of `collection` of `object`: its collection's and its
    /// elements' registrations end, and no callback of it starts after this returns.
    ///
    /// ```swift
    /// kvoController.unobserve(playlist, each: \.songs, keyPath: \.title)
    /// ```
    ///
    /// Unobserving a nil object, or an observation this controller does not hold, ends nothing; observations
    /// of other key paths of the same collection go on.
    ///
    /// - Parameters:
    ///   - object: The object holding the collection.
    ///   - collection: The array or set whose elements are observed.
    ///   - keyPath: What is observed on each element.
    public func unobserve<Object: KeyValueObservable, Elements: Collection, Value>(
        _ object: Object?,
        each collection: KeyPath<Object, Elements>,
        keyPath: KeyPath<Elements.Element, Value>
    ) {
        guard let object else { return }
        let id = ObjectIdentifier(object)
        let ended = state.withLock { state in
            state.removeElementObservations(of: id) { $0.collection == collection && $0.keyPath == keyPath }
        }
        // (Ended with the lock no longer held: an end waits for callbacks running on other threads.)
        for entry in ended { entry.end() }
    }

    /// The forms' common part, where the types are known (see `_observeElements`).
    @inlinable
    func _observeElements<Object: KeyValueObservable & SendableMetatype, Elements, Element, Value>(
        _ object: Object,
        _ collection: KeyPath<Object, Elements>,
        _ keyPath: KeyPath<Element, Value>,
        _ options: KVOOptions,
        ordered: Bool,
        _ site: (file: StaticString, line: UInt),
        elements: @escaping @Sendable (Elements) -> [Element],
        _ block: @escaping @Sendable (Observer, Object, KVOChange<[Value]>) -> Void
    ) where Element: KeyValueObservable & SendableMetatype {
        let observer = _observer
        _registerElements(of: object, collection, keyPath, at: site) { reservation throws(KVOError) in
            try object._observeElements(
                collection,
                keyPath: keyPath,
                options: options,
                ordered: ordered,
                site: site,
                form: .block,
                observer: Observer.self,
                elements: elements
            ) { object, change in
                guard !reservation.hasEnded, let observer = observer.object else { return }
                block(observer, object, change)
            }
        }
    }

    /// Every element-wise form's registration: the place reserved (nothing, if this controller observes
    /// `keyPath` of the elements of `collection` of `object` already), the observation `make` makes kept in
    /// it, or its error given to ``errorHandler`` and the place given up.
    @inlinable
    func _registerElements(
        of object: AnyObject,
        _ collection: AnyKeyPath,
        _ keyPath: AnyKeyPath,
        at site: (file: StaticString, line: UInt),
        _ make: (ElementReservation) throws(KVOError) -> KVOObservation
    ) {
        guard let reservation = _reserveElements(of: object, collection, keyPath, at: site) else { return }
        let token: KVOObservation
        do {
            token = try make(reservation)
        } catch {
            _keep(nil, reservedBy: reservation, of: object)
            return errorHandler(error)
        }
        _keep(token, reservedBy: reservation, of: object)
    }

    /// Keeps the place of an observation of `keyPath` of the elements of `collection` of `object` while
    /// `observe` makes it; nil if this controller observes it already (or another thread is making it).
    @usableFromInline
    func _reserveElements(
        of object: AnyObject,
        _ collection: AnyKeyPath,
        _ keyPath: AnyKeyPath,
        at site: (file: StaticString, line: UInt)
    )
        -> ElementReservation?
    {
        let reservation = ElementReservation()
        let entry = ElementObservationEntry(
            collection: collection,
            keyPath: keyPath,
            reservation: reservation,
            retained: retainsObserved ? object : nil
        )
        let id = ObjectIdentifier(object)
        let (kept, ended) = state.withLock { state -> (ElementObservationEntry?, [ElementObservationEntry]) in
            let ended = state.pruneElementObservations(of: id)
            if let kept = state.elementObservation(of: id, collection, keyPath) { return (kept, ended) }
            state.elementObservations[id, default: []].append(entry)
            return (nil, ended)
        }
        withExtendedLifetime(ended) {}
        guard let kept else { return reservation }
        #if DEBUG
        reportIgnoredElements(of: object, keeping: kept, ignoredAt: site)
        #else
        _ = kept
        #endif
        return nil
    }

    #if DEBUG
    /// Reports an element-wise `observe` ignored because this controller observes the same already, when
    /// the one that stays was made at another place (as `reportIgnored` does for a key path). One still
    /// being made on another thread has no registration to name yet: it is not reported.
    private func reportIgnoredElements(
        of object: AnyObject,
        keeping kept: ElementObservationEntry,
        ignoredAt site: (file: StaticString, line: UInt)
    ) {
        let ignoredAt = "\(site.file):\(site.line)"
        guard let info = kept.token?.info, let keptAt = _RegistrationSites.site(info.site)?.place,
            keptAt != ignoredAt, let name = kept.name
        else { return }
        errorHandler(
            .alreadyObserved(
                keyPath: name,
                type: type(of: object),
                observerType: Observer.self,
                keptAt: keptAt,
                ignoredAt: ignoredAt,
                elementWise: true
            )
        )
    }
    #endif

    /// Keeps an observation of elements, made, in the place `reservation` kept, until an unobserve of it
    /// (``unobserve(_:each:keyPath:)``, ``unobserve(_:)``, ``unobserveAll()``), the controller's end or its
    /// object's deinit; ends it at once if an unobserve came meanwhile. With no token (`observe` failed),
    /// gives the place up.
    @usableFromInline
    func _keep(_ token: KVOObservation?, reservedBy reservation: ElementReservation, of object: AnyObject) {
        let id = ObjectIdentifier(object)
        let (kept, released) = state.withLock { state -> (Bool, [ElementObservationEntry]) in
            guard let token else {
                return (false, state.removeElementObservations(of: id) { $0.reservation === reservation })
            }
            guard let index = state.elementObservations[id]?.firstIndex(where: { $0.reservation === reservation })
            else { return (false, []) }
            state.elementObservations[id]![index].token = token
            return (true, [])
        }
        withExtendedLifetime(released) {}
        if !kept { token?.invalidate() }
    }
}
