import Observation
import Synchronization

/// The registrar's side of the bridge to Swift's Observation, for classes that conform to both
/// ``KeyValueObservable`` and `Observable` (see `KeyValueObservable+Observation.swift`).
extension KVORegistrar {
    /// Makes the object's part in Observation, unless another thread made it first: at the first read
    /// reported, since a read is what lets Observation start tracking the object.
    @usableFromInline
    @inline(never)
    func _makeObservationBridge() {
        _ = observationBridge.storeIfNil(ObservationBridge())
    }

    /// True while this thread evaluates a key path for KVOMediator: its reads are the library's own,
    /// not ones for Observation to track. (One load while no tracker may be installed on it.)
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
        var keyPaths: [(keyPath: AnyKeyPath, field: Int)] = [(keyPath, -1)]
        for access in accesses(readBy: keyPath, on: object) {
            let slotKeyPath: (keyPath: AnyKeyPath, field: Int)? =
                switch access.slot {
                case .field(let offset): access.wrapped.map { ($0, offset) }
                case .keyPath(let customStorage): (customStorage, -1)
                case .lifetime: nil
                }
            guard let slotKeyPath else { continue }
            if let same = keyPaths.firstIndex(where: { $0.keyPath == slotKeyPath.keyPath }) {
                // `keyPath` names the property itself: reported by its offset, as the one key path object
                // its reads and sets report (the getter's own, equal to `keyPath`, so of the same root).
                if keyPaths[same].field < 0 { keyPaths[same] = slotKeyPath }
            } else {
                keyPaths.append(slotKeyPath)
            }
        }
        bridge.report(event, of: object, at: keyPaths)
    }
}
