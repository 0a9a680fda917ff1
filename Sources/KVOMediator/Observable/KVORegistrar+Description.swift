/// Naming a registrar's slots, for descriptions and key path names.
extension KVORegistrar {
    /// The name of a slot (see `describe(_:)`).
    func name(of slot: SlotKey) -> String? {
        self.describe(slot).name
    }

    /// The name of a slot (an `@Observed` property's, or the name the type gives custom storage in
    /// ``KeyValueObservable/keyPathName(for:)``) and, for a property, the typed key path that read it.
    func describe(_ slot: SlotKey) -> (name: String?, wrapped: AnyKeyPath?) {
        let (ownerType, wrapped): (AnyObject.Type?, AnyKeyPath?) = withState { state in
            (state.ownerType, state.entryIndex(for: slot).flatMap { state.entry(at: $0).wrapped })
        }
        // (The type's own code, for custom storage: asked with no lock held.)
        let name = Self.name(of: slot, in: ownerType)
        if case .field = slot { return (name, wrapped) }
        return (name, nil)
    }

    /// The name `type` gives a slot of its objects: an `@Observed` property's, or what the type names
    /// custom storage in ``KeyValueObservable/keyPathName(for:)``; nil for a lifetime, or when not known.
    static func name(of slot: SlotKey, in type: AnyObject.Type?) -> String? {
        switch slot {
        case .field(let offset): type.flatMap { ObservedFields.name(at: offset, in: $0) }
        case .keyPath(let keyPath): (type as? any KeyValueObservable.Type)?.keyPathName(for: keyPath)
        case .lifetime: nil
        }
    }
}
