import Observation

// The bridge to Swift's Observation, chosen per class at compile time: the witnesses of the requirements
// below come from the first extension for a class that is not `Observable`, and from the second for one
// that is. In an optimised build `_reportsToObservation` is a constant, so a class that does not bridge
// pays nothing, not even a load. A bridged one reports to an `ObservationRegistrar` that its registrar
// makes at the first reported read (see `ObservationBridge`).

extension KeyValueObservable {
    /// False: the class does not conform to `Observable`.
    @inlinable
    public static var _reportsToObservation: Bool { false }

    /// Nothing to report: the class does not conform to `Observable`.
    @inlinable
    public static func _observationAccess<Value>(
        of object: Self,
        keyPath: () -> AnyKeyPath,
        field: Int,
        valueType: Value.Type
    ) {}

    /// Runs `mutation`: the class does not conform to `Observable`.
    @inlinable
    public static func _withObservationMutation<Value>(
        of object: Self,
        keyPath: () -> AnyKeyPath,
        field: Int,
        valueType: Value.Type,
        _ mutation: () -> Void
    ) {
        mutation()
    }
}

extension KeyValueObservable where Self: Observable {
    /// True: the class conforms to `Observable`, so its reads and changes are reported to Observation.
    @inlinable
    public static var _reportsToObservation: Bool { true }

    /// Reports the read to the object's `ObservationRegistrar`, making it at the first read (a read is
    /// what lets an observation start).
    @inlinable
    @inline(__always)
    public static func _observationAccess<Value>(
        of object: Self,
        keyPath: () -> AnyKeyPath,
        field: Int,
        valueType: Value.Type
    ) {
        // The library's own reads are not the caller's: observing inside `withObservationTracking`
        // must not make the tracking closure depend on what is observed.
        if KVORegistrar._isReadingForLibrary { return }
        let registrar = object.kvoRegistrar
        if _slowPath(!registrar.observationBridge.isStored) { registrar._makeObservationBridge() }
        // Borrowed, not loaded: no retain and release of the bridge on each read.
        _ = registrar.observationBridge.withInstance { bridge in
            bridge.keyPaths.withCanonical(field: field, keyPath) { keyPath in
                // The callers pass a `KeyPath<Self, Value>`, erased only to cross the requirement.
                bridge.registrar.access(object, keyPath: ErasedKeyPath.restore(keyPath, as: KeyPath<Self, Value>.self))
            }
        }
    }

    /// Runs `mutation` between the `willSet` and `didSet` of the object's `ObservationRegistrar`; with
    /// none made yet, nothing can be tracking the object, and `mutation` runs alone.
    @inlinable
    public static func _withObservationMutation<Value>(
        of object: Self,
        keyPath: () -> AnyKeyPath,
        field: Int,
        valueType: Value.Type,
        _ mutation: () -> Void
    ) {
        let reported: Void? = object.kvoRegistrar.observationBridge.withInstance { bridge in
            // The property's one key path object, which its reads report too.
            bridge.keyPaths.withCanonical(field: field, keyPath) { keyPath in
                let keyPath = ErasedKeyPath.restore(keyPath, as: KeyPath<Self, Value>.self)
                bridge.registrar.willSet(object, keyPath: keyPath)
                mutation()
                bridge.registrar.didSet(object, keyPath: keyPath)
            }
        }
        if reported == nil { mutation() }
    }
}
