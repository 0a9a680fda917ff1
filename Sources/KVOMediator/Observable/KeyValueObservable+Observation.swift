import Observation

// The bridge to Swift's Observation, chosen per class at compile time: the witnesses of the two
// requirements below come from the first extension for a class that is not `Observable`, and from the
// second for one that is. In an optimised build the first inline to nothing, so a class that does not
// bridge pays nothing, not even a load; the second report to an `ObservationRegistrar` that the
// object's registrar makes at the first reported read (see `ObservationBridge`).

extension KeyValueObservable {
    /// False: the class does not conform to `Observable`.
    @inlinable
    public static var _reportsToObservation: Bool { false }

    /// Nothing to report: the class does not conform to `Observable`.
    @inlinable
    @inline(__always)
    public static func _reportToObservation<Value>(
        _ event: _ObservationEvent,
        of object: Self,
        keyPath: AnyKeyPath,
        valueType: Value.Type
    ) {}
}

extension KeyValueObservable where Self: Observable {
    /// True: the class conforms to `Observable`, so its reads and changes are reported to Observation.
    @inlinable
    public static var _reportsToObservation: Bool { true }

    /// Reports to the object's `ObservationRegistrar`: a read makes it if needed (a read is what lets
    /// an observation start); a change with none made yet has nobody to tell.
    @inlinable
    public static func _reportToObservation<Value>(
        _ event: _ObservationEvent,
        of object: Self,
        keyPath: AnyKeyPath,
        valueType: Value.Type
    ) {
        // The callers pass a `KeyPath<Self, Value>` (see the requirement): once inlined, this cast is an upcast.
        let keyPath = keyPath as! KeyPath<Self, Value>
        let registrar = object.kvoRegistrar
        switch event {
        case .access:
            registrar._observationRegistrar.access(object, keyPath: keyPath)
        case .willSet:
            registrar._observationRegistrarIfMade?.willSet(object, keyPath: keyPath)
        case .didSet:
            registrar._observationRegistrarIfMade?.didSet(object, keyPath: keyPath)
        }
    }
}
