/// What a key path depends on, for debugging: the observable properties it reads now.
extension KeyValueObservable {
    /// The observable properties that `keyPath` reads on this object now, as `Type.property`, each once, in
    /// the order it reads them: what an observation of `keyPath` would be told of (a chain's links and its
    /// leaf, a computed property's dependencies, declared ones included).
    ///
    /// ```swift
    /// person.kvoDependencies(of: \.fullName)        // ["Person.firstName", "Person.lastName"]
    /// person.kvoDependencies(of: \.address?.city)   // ["Person.address", "Address.city"]
    /// ```
    ///
    /// It evaluates `keyPath` (its getters run), so it answers for the object as it is now: a computed
    /// property that reads one property or another depending on a third lists the ones it reads now, and a
    /// chain with a nil link lists the links up to it. Custom storage is named as its type names it
    /// (``KeyValueObservable/keyPathName(for:)``), or `<custom storage>`.
    ///
    /// - Parameter keyPath: The key path to evaluate.
    /// - Returns: The names of the properties it reads; empty when it reads nothing observable.
    public func kvoDependencies<Value>(of keyPath: KeyPath<Self, Value>) -> [String] {
        // (Read as an observation's evaluation reads, so that declared dependencies are followed too.)
        let tracker = AccessTracker(subscribing: nil)
        tracker.listsDependencies = true
        _ = tracker.run { self[keyPath: keyPath] }
        var names: [String] = []
        for access in tracker.accesses {
            guard let name = access.qualifiedName else { continue }
            if !names.contains(name) { names.append(name) }
        }
        return names
    }
}

extension Access {
    /// `Type.property` for the slot read (nil for a registration of an object's lifetime only): named from
    /// the type of the object read, as records name properties.
    var qualifiedName: String? {
        if case .lifetime = slot { return nil }
        let type: AnyObject.Type? = objectType ?? registrar.withState { $0.ownerType }
        let typeName = type.map { "\($0)" } ?? "<object>"
        return "\(typeName).\(KVORegistrar.name(of: slot, in: type) ?? "<custom storage>")"
    }
}
