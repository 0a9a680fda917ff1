/// Reports a read of the `@Observed` or `@ObservedWeak` property whose storage is at `storageKeyPath` of
/// `object`: to the observation this thread is evaluating, if any (the library's own read, not one for
/// Observation to track), else to Observation, if the class bridges to it (a constant; see
/// `KeyValueObservable+Observation.swift`).
///
/// One closure gives the property's key path to both: the optimiser then builds the literal inside that
/// closure, which runs only where a read needs the key path object, and the getter makes none. (With a
/// closure for each, the literal stays in the getter, built and released on every read.)
@inlinable
@inline(__always)
func _reportRead<Object: KeyValueObservable, Storage, Value>(
    of object: Object,
    storage storageKeyPath: ReferenceWritableKeyPath<Object, Storage>,
    valueType: Value.Type,
    wrapped: () -> AnyKeyPath
) {
    if _slowPath(KVORegistrar._isTracking) {
        let registrar = object.kvoRegistrar
        if registrar._isTrackingOnThisThread {
            registrar._access(field: _storageOffsetForReading(storageKeyPath, of: object), of: object, wrapped: wrapped)
            return
        }
    }
    if Object._reportsToObservation {
        Object._observationAccess(
            of: object,
            keyPath: wrapped,
            field: _storageOffsetForBridge(storageKeyPath, of: object),
            valueType: Value.self
        )
    }
}
