extension KVOController {
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
    /// The path is checked as the other form checks it, and the value there now is checked against
    /// `type`, as ``KeyValueObservable/value(atKeyPath:as:)`` checks it: `as: Int.self` for a `String`
    /// throws, naming both types. While the value is nil, any type is taken.
    ///
    /// Where the value is a `Value` itself (a property of that very type), a record costs what the typed
    /// form's costs: no value is boxed as `Any` or cast.
    ///
    /// - Parameters:
    ///   - object: The object to observe; nil does nothing.
    ///   - keyPath: Dotted `@Observed` property names.
    ///   - type: The type of the values, without optionals (`String.self` for a `String?` property).
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
        try _checkValue(of: object, at: keyPath, as: Value.self)
        let site = _RegistrationSites.enter(file, line, .string, observer: Observer.self)
        defer { _RegistrationSites.leave(site) }
        // (The box is made here, where the types are concrete: see `observe(_:keyPath:options:file:line:block:)`.)
        try _observe(
            object,
            keyPath: keyPath,
            options: options,
            box: _CastingObserverBlockBox(observer: _observer, block: block)
        )
    }

    /// Checks that the value at `path` of `object` now, if there is one, is a `Value`. (A path that reaches
    /// no value is checked as it is observed.)
    @usableFromInline
    func _checkValue<Object: KeyValueObservable, Value>(
        of object: Object,
        at path: String,
        as _: Value.Type
    ) throws(KVOError) {
        guard let value = object.unreportedValue(atKeyPath: path), !(value is Value) else { return }
        throw KVOError.typeMismatch(observing: value, as: Value.self, path: path, root: Object.self)
    }
}

extension KVOError {
    /// A string key path observed as a type its value is not of.
    static func typeMismatch(
        observing value: Any,
        as expected: Any.Type,
        path: String,
        root: AnyObject.Type
    ) -> KVOError {
        let actual = String(describing: type(of: value))
        return KVOError(
            reason: .typeMismatch(expected: String(describing: expected), actual: actual),
            keyPath: path,
            typeName: String(describing: root),
            message: "KVOMediator: the value at \"\(path.prefix(200))\" of \(root) is of type \(actual), not "
                + "\(expected), so every record would hold nil. Observe it as \(actual): observe(_:keyPath: "
                + "\"\(path.prefix(200))\", as: \(actual).self), or observe the typed key path, whose type the "
                + "compiler checks."
        )
    }
}
