extension KeyValueObservable {
    /// The value at a string key path of `@Observed` property names, as Cocoa's `value(forKeyPath:)`.
    ///
    /// ```swift
    /// person[kvoKeyPath: "address.city"]   // Optional("Paris")
    /// ```
    ///
    /// Each component is read from the `@Observed` property of that name, and the read is reported to
    /// an observation being set up, so `\.[kvoKeyPath: "address.city"]` is observable like the typed
    /// `\.address.city`. The value is nil when a component is nil, unknown, or not an observable object;
    /// ``validateKeyPath(_:)`` tells which.
    public subscript(kvoKeyPath path: String) -> Any? {
        var current: AnyObject = self
        let names = path.split(separator: ".", omittingEmptySubsequences: false)
        for (index, name) in names.enumerated() {
            guard let observable = current as? any KeyValueObservable else { return nil }
            observable.kvoRegistrar.access(named: name, of: observable)
            guard let stored = observedValue(of: observable, named: name), let value = flattened(stored) else {
                return nil
            }
            if index == names.count - 1 { return value }
            guard let next = value as? any KeyValueObservable else { return nil }
            current = next
        }
        return nil
    }

    /// Checks a string key path against this object's `@Observed` properties, component by component.
    ///
    /// Components past a nil intermediate value cannot be checked and are accepted.
    ///
    /// - Throws: ``KVOError`` with reason `.malformedKeyPath` for an empty path or an empty component,
    ///   `.unknownKey` for a name that is not an `@Observed` property (the message lists the valid ones)
    ///   or a component that is not a ``KeyValueObservable`` object but has more components after it.
    public func validateKeyPath(_ path: String) throws(KVOError) {
        let typeName = String(describing: type(of: self))
        let names = path.split(separator: ".", omittingEmptySubsequences: false)
        guard !path.isEmpty, !names.contains(where: \.isEmpty) else {
            throw KVOError(
                reason: .malformedKeyPath,
                keyPath: path,
                typeName: typeName,
                message: "KVOMediator: \"\(path.prefix(200))\" is not a valid key path of \(typeName): it must be "
                    + "@Observed property names separated by single dots, like \"address.city\"."
            )
        }
        var current: AnyObject = self
        for (index, name) in names.enumerated() {
            let currentType = String(describing: type(of: current))
            let properties = observedProperties(of: current)
            guard let property = properties.first(where: { $0.name == name }) else {
                let valid = properties.map(\.name).sorted().joined(separator: ", ")
                throw KVOError(
                    reason: .unknownKey(String(name)),
                    keyPath: path,
                    typeName: currentType,
                    message: "KVOMediator: \(currentType) has no observable property \"\(name.prefix(200))\" "
                        + "(in key path \"\(path.prefix(200))\" of \(typeName)). Its observable properties are: "
                        + (valid.isEmpty ? "none" : valid)
                        + ". Only @Observed properties can be named in string key paths."
                )
            }
            if index == names.count - 1 { return }
            guard let value = flattened(property.value) else { return }
            guard let next = value as? any KeyValueObservable else {
                throw KVOError(
                    reason: .unknownKey(String(names[index + 1])),
                    keyPath: path,
                    typeName: currentType,
                    message: "KVOMediator: \"\(name)\" of \(currentType) is a \(type(of: value)), not a "
                        + "KeyValueObservable object, so the key path \"\(path.prefix(200))\" of \(typeName) "
                        + "cannot continue past it."
                )
            }
            current = next
        }
    }
}
