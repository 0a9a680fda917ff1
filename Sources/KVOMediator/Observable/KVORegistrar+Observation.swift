import Observation
import Synchronization

/// The registrar's side of the bridge to Swift's Observation, for classes that conform to both
/// ``KeyValueObservable`` and `Observable` (see `KeyValueObservable+Observation.swift`).
extension KVORegistrar {
    /// The object's part in Observation, made at the first call: for reads, which are what let
    /// Observation start tracking the object.
    @inlinable
    var _observationBridge: ObservationBridge {
        observationBridge.load() ?? _makeObservationBridge()
    }

    /// Makes the bridge, or takes the one another thread made first.
    @usableFromInline
    @inline(never)
    func _makeObservationBridge() -> ObservationBridge {
        observationBridge.storeIfNil(ObservationBridge())
    }

    /// True while this thread evaluates a key path for KVOMediator: its reads are the library's own,
    /// not ones for Observation to track. (One relaxed load while no thread does.)
    @inlinable
    var _isEvaluatingOnThisThread: Bool {
        KVORegistrar._isTracking && _isTrackingOnThisThread
    }

    /// Reports a manual change (`willChangeValue(for:)` / `didChangeValue(for:)` of `keyPath`) to
    /// Observation: at `keyPath` itself and at every slot of this object that it reads, which is where
    /// the getters reported their reads (a computed property reports those of what it reads).
    func reportManualChange<Object: KeyValueObservable, Value>(
        _ event: ObservationEvent,
        of object: Object,
        keyPath: KeyPath<Object, Value>
    ) {
        guard let bridge = observationBridge.load() else { return }
        var keyPaths: [AnyKeyPath] = [keyPath]
        for access in accesses(readBy: keyPath, on: object) {
            let slotKeyPath: AnyKeyPath? =
                switch access.slot {
                case .field: access.wrapped
                case .keyPath(let customStorage): customStorage
                case .lifetime: nil
                }
            if let slotKeyPath, !keyPaths.contains(slotKeyPath) { keyPaths.append(slotKeyPath) }
        }
        bridge.report(event, of: object, at: keyPaths)
    }
}
