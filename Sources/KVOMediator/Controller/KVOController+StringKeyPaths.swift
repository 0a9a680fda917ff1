extension KVOController {
    /// Observes a string key path of `@Observed` property names, such as `"address.city"`.
    ///
    /// ```swift
    /// try kvoController.observe(person, keyPath: "address.city", options: [.new]) { view, person, change in
    ///     view.cityLabel = change.newValue as? String
    /// }
    /// ```
    ///
    /// The string is checked first (``KeyValueObservable/validateKeyPath(_:)``), then observed as the key
    /// path `\Object.[kvoKeyPath: path]`, which is what `change.keyPath` holds. It reaches the same
    /// registration as the typed form: observing `\.address.city` after `"address.city"` (or the other
    /// way round) is ignored, and either form unobserves it. That is decided when you call, from the
    /// objects as they are: while a link of a chain is nil (`address` nil in `\.address?.city`), Swift
    /// gives no way to tell which properties the typed key path reads past it, so the two forms made
    /// then are two registrations, each delivering its records, and an unobserve by one form ends the
    /// other only once the chain can be followed to its end again.
    ///
    /// - Parameters:
    ///   - object: The object to observe; nil does nothing.
    ///   - keyPath: Dotted `@Observed` property names.
    ///   - options: What each record carries; values are boxed as `Any` (`change.newValue as? String`);
    ///     when a component of the path is nil, the value is an `Any` holding `nil`.
    ///   - file: The file named as where the registration was made (in ``KVOController/debugDescription`` and
    ///     ``KVOTrace``): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    ///   - block: Called for each change.
    /// - Throws: ``KVOError`` for a malformed path or an unknown name; its message lists the valid names.
    @inlinable
    public func observe<Object: KeyValueObservable>(
        _ object: Object?,
        keyPath: String,
        options: KVOOptions = [.new],
        file: StaticString = #fileID,
        line: UInt = #line,
        block: @escaping @Sendable (Observer, Object, KVOChange<Any>) -> Void
    ) throws {
        guard let object else { return }
        // The box is made here, where the types are concrete, so that its delivery is specialised (see
        // `_DeliveryBox`): made in the library, it looked up `KVOChange<Any>`'s metadata on every change.
        try _observe(
            object,
            keyPath: keyPath,
            options: options,
            site: (file, line),
            box: _ObserverBlockBox(observer: _observer, block: block)
        )
    }

    /// `observe(_:keyPath:options:block:)` for a string key path, made at `site`, its callback in `box`; with a
    /// `valueType`, the value there now, if any, must be one (`isOfType`), as `observe(_:keyPath:as:…)` asks.
    @usableFromInline
    func _observe<Object: KeyValueObservable>(
        _ object: Object,
        keyPath: String,
        options: KVOOptions,
        site: (file: StaticString, line: UInt),
        box: _DeliveryBox,
        valueType: Any.Type? = nil,
        isOfType: (Any) -> Bool = { _ in true }
    ) throws {
        let site = _RegistrationSites.enter(site.file, site.line, .string, observer: Observer.self)
        defer { _RegistrationSites.leave(site) }
        try object.validateKeyPath(keyPath)
        if let valueType, let value = object.unreportedValue(atKeyPath: keyPath), !isOfType(value) {
            throw KVOError.typeMismatch(observing: value, as: valueType, path: keyPath, root: Object.self)
        }
        let typedKeyPath: KeyPath<Object, Any?> = \Object.[kvoKeyPath: keyPath]
        let info = KVODispatcher.shared.makeRegistration(
            object,
            reader: TypedKVOInfo<Object, Any>.Reader.flattening(typedKeyPath),
            options: options,
            owner: self,
            stringKeyPath: keyPath,
            box: box
        )
        var failure: KVOError?
        register(info, on: object, onError: { failure = $0 })
        if let failure { throw failure }
    }

    /// Stops observing a string key path of `object`, or the typed key path it names.
    ///
    /// Unobserving a nil object, or a key path that is not observed, does nothing.
    public func unobserve<Object: KeyValueObservable>(_ object: Object?, keyPath: String) {
        guard let object else { return }
        let current = state.withLock { state in
            state.table.infos(of: ObjectIdentifier(object))
        }
        // Names are found outside the lock: finding them may load, and so release, registrars.
        let matching = Set(
            current.filter { $0.stringKeyPath == keyPath || $0.namePath == keyPath }.map(ObjectIdentifier.init)
        )
        remove(from: object) { matching.contains(ObjectIdentifier($0)) }
    }

    /// Observes a string key path of `@Observed` property names, such as `"address.city"`, its values
    /// delivered as a type you name.
    ///
    /// ```swift
    /// try kvoController.observe(person, keyPath: "address.city", as: String.self) { view, person, change in
    ///     view.cityLabel = change.newValue ?? "—"
    /// }
    /// ```
    ///
    /// The registration is the string key path's own
    /// (``observe(_:keyPath:options:file:line:block:)-(_,String,_,_,_,_)``, whose records hold `Any`): the
    /// same records, each value given as it would be by `value as? Value`. A value that is nil (the
    /// property, or a link on the way) is delivered as nil, as is a value of another type, which only a
    /// property declared as a wider type (`Any`, a superclass) can hold. A collection mutation's record
    /// has its kind and indexes, its values the elements it inserted or removed, as a collection
    /// (`as: [String].self` for an array of strings).
    ///
    /// The path is checked as the other form checks it, then the value there now against `type`, as
    /// ``KeyValueObservable/value(atKeyPath:as:)`` checks it: `as: Int.self` for a `String` throws, naming
    /// both types (also when the path is observed already). While the value is nil, any type is taken.
    ///
    /// With an optional type (`as: String?.self`), a nil value arrives as a value that is nil
    /// (`.some(nil)`), as a typed key path through an optional gives it, and nil means only that the
    /// record does not carry the value.
    ///
    /// For one property whose type is `type` itself (not an optional), a record costs what the typed
    /// form's costs: no value is boxed as `Any` or cast.
    ///
    /// - Parameters:
    ///   - object: The object to observe; nil does nothing.
    ///   - keyPath: Dotted `@Observed` property names.
    ///   - type: The type of the values: without optionals (`String.self` for a `String?` property), or
    ///     optional to tell a nil value from none.
    ///   - options: What each record carries.
    ///   - file: The file named as where the registration was made (in ``KVOController/debugDescription`` and
    ///     ``KVOTrace``): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    ///   - block: Called for each change.
    /// - Throws: ``KVOError`` for a malformed path or an unknown name (its message lists the valid names),
    ///   and `.typeMismatch` when the value there now is not a `Value`.
    /// - Note: It is the same registration as the string key path's other form: observing the path again
    ///   through this controller, in either form, is ignored, and ``unobserve(_:keyPath:)-(_,String)`` ends it.
    @inlinable
    public func observe<Object: KeyValueObservable, Value>(
        _ object: Object?,
        keyPath: String,
        as type: Value.Type,
        options: KVOOptions = [.new],
        file: StaticString = #fileID,
        line: UInt = #line,
        block: @escaping @Sendable (Observer, Object, KVOChange<Value>) -> Void
    ) throws {
        guard let object else { return }
        // (The box is made here, where the types are concrete: see `observe(_:keyPath:options:file:line:block:)`.)
        try _observe(
            object,
            keyPath: keyPath,
            options: options,
            site: (file, line),
            box: _ObserverBlockBox(observer: _observer, castingFor: block),
            valueType: Value.self,
            isOfType: { $0 is Value }
        )
    }
}
