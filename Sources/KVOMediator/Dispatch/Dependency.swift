/// Told when a registration ends because the object it observes deinitialised.
protocol KVOInfoOwner: AnyObject {
    func infoDidEnd(_ info: KVOInfo)
}

/// A dependency of a registration: a slot of some object's registrar.
struct Dependency {
    /// Unretained, and used only under the registration's lock: a registrar's deinit ends every
    /// dependency on it under that same lock (``KVOInfo/registrarDidDeinit(_:)``) before its memory
    /// goes, so while a dependency is listed its registrar's memory is there; calls on it go through
    /// `retainedRegistrar()`. (No weak reference: that would give every observed object's registrar a
    /// side table, and copying one costs atomic operations.)
    let registrar: Unretained<KVORegistrar>
    let slot: SlotKey

    /// The registrar, retained, unless it has started deinitialising (its deinit then ends this
    /// dependency itself, under the registration's lock).
    ///
    /// The caller releases it only after unlocking the registration's lock: its last release may run
    /// the registrar's deinit, which takes that lock. (Used unretained, the registrar could be
    /// released for the last time by the very call made on it, say by an unoptimised build's retain
    /// and release of `self`, while the caller holds the lock: a deadlock.)
    func retainedRegistrar() -> Unretained<KVORegistrar>? {
        registrar.retainedIfAlive()
    }

    /// The registrar's identity.
    var registrarID: ObjectIdentifier {
        registrar.id
    }
}
