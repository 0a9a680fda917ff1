extension KeyValueObservable {
    /// Observes `keyPath` of this object for as long as the returned token lives.
    ///
    /// ```swift
    /// let token = try person.observe(\.address.city, options: [.initial, .new]) { person, change in
    ///     print(change.newValue!)
    /// }
    /// ```
    ///
    /// Callbacks run synchronously on the thread that makes the change; `.initial` is delivered
    /// before this returns.
    ///
    /// - Parameters:
    ///   - keyPath: What to observe: a property, a chain or a computed property.
    ///   - options: What each record carries.
    ///   - file: The file named as where the registration was made (in ``KVOController/debugDescription`` and
    ///     ``KVOTrace``): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    ///   - changeHandler: Called with the object and each change record.
    /// - Returns: The token; the observation ends when it is invalidated or released.
    /// - Throws: ``KVOError`` when `keyPath` reads no observable property.
    /// - Important: A key path is read when observed, to find what it depends on: `\.address!.city`
    ///   traps there while `address` is nil, even without `.initial`. Observe `\.address?.city`.
    @inlinable
    @inline(__always)  // (so that the key path is the caller's literal: see `_KeyPathReading`)
    public func observe<Value>(
        _ keyPath: __owned KeyPath<Self, Value>,
        options: KVOOptions = [.new],
        file: StaticString = #fileID,
        line: UInt = #line,
        changeHandler: @escaping @Sendable (Self, KVOChange<Value>) -> Void
    ) throws(KVOError) -> KVOObservation {
        let site = _RegistrationSites.enter(file, line, .token, observer: nil)
        defer { _RegistrationSites.leave(site) }
        // Made here, where the types are concrete (see `TypedKVOInfo`).
        let info: TypedKVOInfo<Self, Value> = KVODispatcher.shared._makeRegistration(
            self,
            reading: TypedKVOInfo<Self, Value>._reading(consume keyPath),
            options: options,
            owner: nil,
            box: _HandlerBox(changeHandler)
        )
        return try _observe(info)
    }

    /// Starts the registration and returns its token.
    @usableFromInline
    func _observe<Value>(_ info: TypedKVOInfo<Self, Value>) throws(KVOError) -> KVOObservation {
        if info.options.contains(.initial) {
            try KVODispatcher.shared.start(info, on: self) { value in info.deliverInitial(value, to: self) }
        } else {
            try KVODispatcher.shared.start(info, on: self)
        }
        return KVOObservation(info: info)
    }
}
