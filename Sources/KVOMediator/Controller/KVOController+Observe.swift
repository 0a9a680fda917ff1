extension KVOController {
    /// Observes `keyPath` of `object`, calling `block` with the observer, the object and the change.
    ///
    /// ```swift
    /// kvoController.observe(circle, keyPath: \.radius, options: [.old, .new]) { view, circle, change in
    ///     view.animate(from: change.oldValue!, to: change.newValue!)
    /// }
    /// ```
    ///
    /// The key path may be any chain or computed property that reads `@Observed` properties; it is
    /// re-read after each change of what it read. The block gets the observer as a parameter, so it
    /// need not capture `self`; it is `@Sendable` because it runs on whichever thread changes the
    /// object (a closure formed on the main actor cannot silently touch main-actor state there).
    ///
    /// - Parameters:
    ///   - object: The object to observe; nil does nothing.
    ///   - keyPath: What to observe.
    ///   - options: What each record carries; `.initial` delivers one record before this returns.
    ///   - file: The file named as where the registration was made (in ``KVOController/debugDescription`` and
    ///     ``KVOTrace``): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    ///   - block: Called for each change while both the observer and the registration are alive.
    /// - Note: Observing the same object and key path again through this controller is ignored.
    /// - Complexity: O(number of observable reads of `keyPath`).
    /// - Important: A key path is read when observed, to find what it depends on: `\.address!.city`
    ///   traps there while `address` is nil, even without `.initial`. Observe `\.address?.city`.
    @inlinable
    @inline(__always)  // (so that the key path is the caller's literal: see `_KeyPathReading`)
    public func observe<Object: KeyValueObservable, Value>(
        _ object: Object?,
        keyPath: __owned KeyPath<Object, Value>,
        options: KVOOptions = [.new],
        file: StaticString = #fileID,
        line: UInt = #line,
        block: @escaping @Sendable (Observer, Object, KVOChange<Value>) -> Void
    ) {
        let site = _RegistrationSites.enter(file, line, .block, observer: Observer.self)
        defer { _RegistrationSites.leave(site) }
        _observe(object, keyPath: consume keyPath, options: options, block: block)
    }

    /// `observe(_:keyPath:options:block:)`, the registration's site entered by the caller.
    @inlinable
    @inline(__always)  // (so that the key path is the caller's literal: see `_KeyPathReading`)
    func _observe<Object: KeyValueObservable, Value>(
        _ object: Object?,
        keyPath: __owned KeyPath<Object, Value>,
        options: KVOOptions,
        block: @escaping @Sendable (Observer, Object, KVOChange<Value>) -> Void
    ) {
        guard let object else { return }
        // Made here, where the types are concrete (see `TypedKVOInfo`).
        let info: TypedKVOInfo<Object, Value> = KVODispatcher.shared._makeRegistration(
            object,
            reading: TypedKVOInfo<Object, Value>._reading(consume keyPath),
            options: options,
            owner: self,
            box: _ObserverBlockBox(observer: _observer, block: block)
        )
        _register(info, on: object)
    }

    /// Observes `keyPath` of `object`, calling an unapplied method of the observer: the Swift form of
    /// FBKVOController's action selector.
    ///
    /// ```swift
    /// kvoController.observe(circle, keyPath: \.radius, action: CircleView.radiusDidChange)
    /// // in CircleView: func radiusDidChange(_ change: KVOChange<Double>) { … }
    /// ```
    ///
    /// - Parameters:
    ///   - object: The object to observe; nil does nothing.
    ///   - keyPath: What to observe.
    ///   - options: What each record carries.
    ///   - file: The file named as where the registration was made (in ``KVOController/debugDescription`` and
    ///     ``KVOTrace``): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    ///   - action: An unapplied method of the observer's type, such as `Self.radiusDidChange`.
    /// - Note: Observing the same object and key path again through this controller is ignored.
    /// - Important: A key path is read when observed, to find what it depends on: `\.address!.city`
    ///   traps there while `address` is nil, even without `.initial`. Observe `\.address?.city`.
    @inlinable
    @inline(__always)  // (so that the key path is the caller's literal: see `_KeyPathReading`)
    public func observe<Object: KeyValueObservable, Value>(
        _ object: Object?,
        keyPath: __owned KeyPath<Object, Value>,
        options: KVOOptions = [.new],
        file: StaticString = #fileID,
        line: UInt = #line,
        action: @escaping @Sendable (Observer) -> (KVOChange<Value>) -> Void
    ) {
        let site = _RegistrationSites.enter(file, line, .action, observer: Observer.self)
        defer { _RegistrationSites.leave(site) }
        let block = Self._block(calling: action, for: Object.self)
        _observe(object, keyPath: consume keyPath, options: options, block: block)
    }

    /// Observes `keyPath` of `object`, calling an unapplied method of the observer with the change and
    /// the object: FBKVOController's two-argument action selector (`-radiusDidChange:object:`), for an
    /// observer of several objects that must tell which one changed.
    ///
    /// ```swift
    /// kvoController.observe(left, keyPath: \.radius, action: CircleView.radiusDidChange)
    /// kvoController.observe(right, keyPath: \.radius, action: CircleView.radiusDidChange)
    /// // in CircleView: func radiusDidChange(_ change: KVOChange<Double>, of circle: Circle) { … }
    /// ```
    ///
    /// - Parameters:
    ///   - object: The object to observe; nil does nothing.
    ///   - keyPath: What to observe.
    ///   - options: What each record carries.
    ///   - file: The file named as where the registration was made (in ``KVOController/debugDescription`` and
    ///     ``KVOTrace``): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    ///   - action: An unapplied method of the observer's type taking the change and the object.
    /// - Note: Observing the same object and key path again through this controller is ignored.
    /// - Important: A key path is read when observed, to find what it depends on: `\.address!.city`
    ///   traps there while `address` is nil, even without `.initial`. Observe `\.address?.city`.
    @inlinable
    @inline(__always)  // (so that the key path is the caller's literal: see `_KeyPathReading`)
    public func observe<Object: KeyValueObservable, Value>(
        _ object: Object?,
        keyPath: __owned KeyPath<Object, Value>,
        options: KVOOptions = [.new],
        file: StaticString = #fileID,
        line: UInt = #line,
        action: @escaping @Sendable (Observer) -> (KVOChange<Value>, Object) -> Void
    ) {
        let site = _RegistrationSites.enter(file, line, .action, observer: Observer.self)
        defer { _RegistrationSites.leave(site) }
        let block = Self._block(calling: action)
        _observe(object, keyPath: consume keyPath, options: options, block: block)
    }

    /// A block that calls `action` on the observer with the change and the object.
    @inlinable
    static func _block<Object, Value>(
        calling action: @escaping @Sendable (Observer) -> (KVOChange<Value>, Object) -> Void
    ) -> @Sendable (Observer, Object, KVOChange<Value>) -> Void {
        { observer, object, change in action(observer)(change, object) }
    }

    /// A block that calls `action` on the observer.
    @inlinable
    static func _block<Object, Value>(
        calling action: @escaping @Sendable (Observer) -> (KVOChange<Value>) -> Void,
        for _: Object.Type
    ) -> @Sendable (Observer, Object, KVOChange<Value>) -> Void {
        { observer, _, change in action(observer)(change) }
    }

    /// Observes several key paths of `object`, delivering each change to the observer's
    /// ``KeyValueObserving/observeValue(forKeyPath:of:change:context:)`` with `context` passed through.
    ///
    /// - Parameters:
    ///   - object: The object to observe; nil does nothing.
    ///   - keyPaths: What to observe; each is registered (and deduplicated) on its own.
    ///   - options: What each record carries.
    ///   - context: Any pointer, passed back unchanged to tell registrations apart.
    ///   - file: The file named as where the registration was made (in ``KVOController/debugDescription`` and
    ///     ``KVOTrace``): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    /// - Important: A key path is read when observed, to find what it depends on: `\.address!.city`
    ///   traps there while `address` is nil, even without `.initial`. Observe `\.address?.city`.
    public func observe<Object: KeyValueObservable>(
        _ object: Object?,
        keyPaths: [PartialKeyPath<Object>],
        options: KVOOptions = [.new],
        context: UnsafeMutableRawPointer?,
        file: StaticString = #fileID,
        line: UInt = #line
    ) where Observer: KeyValueObserving {
        guard let object else { return }
        let site = _RegistrationSites.enter(file, line, .delegate, observer: Observer.self)
        defer { _RegistrationSites.leave(site) }
        for keyPath in keyPaths {
            register(object, reader: .partial(keyPath), keyPath: keyPath, options: options) {
                observer,
                object,
                change in
                observer.observeValue(forKeyPath: change.keyPath, of: object, change: change, context: context)
            }
        }
    }

    /// Observes several key paths of `object` with one block; `change.keyPath` tells which fired.
    ///
    /// ```swift
    /// kvoController.observe(person, keyPaths: [\.firstName, \.lastName]) { view, person, change in
    ///     view.refresh(field: change.keyPath)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - object: The object to observe; nil does nothing.
    ///   - keyPaths: What to observe; each is registered (and deduplicated) on its own.
    ///   - options: What each record carries. A setting's values are its key path's own, boxed as `Any`: a
    ///     `String?` for `\.owner?.name`, whether the name or the owner changed (`change.newValue as? String`
    ///     reads through it); a collection mutation's are the elements it inserted or removed.
    ///   - file: The file named as where the registration was made (in ``KVOController/debugDescription`` and
    ///     ``KVOTrace``): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    ///   - block: Called for each change.
    /// - Important: A key path is read when observed, to find what it depends on: `\.address!.city`
    ///   traps there while `address` is nil, even without `.initial`. Observe `\.address?.city`.
    public func observe<Object: KeyValueObservable>(
        _ object: Object?,
        keyPaths: [PartialKeyPath<Object>],
        options: KVOOptions = [.new],
        file: StaticString = #fileID,
        line: UInt = #line,
        block: @escaping @Sendable (Observer, Object, KVOChange<Any>) -> Void
    ) {
        guard let object else { return }
        let site = _RegistrationSites.enter(file, line, .keyPaths, observer: Observer.self)
        defer { _RegistrationSites.leave(site) }
        for keyPath in keyPaths {
            register(object, reader: .partial(keyPath), keyPath: keyPath, options: options, handler: block)
        }
    }
}
