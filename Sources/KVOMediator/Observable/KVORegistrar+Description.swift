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
        switch slot {
        case .field(let offset):
            return (ownerType.flatMap { ObservedFields.name(at: offset, in: $0) }, wrapped)
        case .keyPath(let keyPath):
            // The type's own code: asked with no lock held.
            return ((ownerType as? any KeyValueObservable.Type)?.keyPathName(for: keyPath), nil)
        case .lifetime:
            return (nil, nil)
        }
    }
}
