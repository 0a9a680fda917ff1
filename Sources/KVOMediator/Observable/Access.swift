/// One observable read: which object's registrar, which slot.
struct Access {
    let registrar: KVORegistrar
    let slot: SlotKey
    /// For a typed read of an `@Observed` property, its key path: what tells a registration that is
    /// exactly this property (delivered directly) from one computed from it.
    var wrapped: AnyKeyPath? = nil
    /// The class of the object read, which names its fields.
    var objectType: AnyObject.Type? = nil
}

extension [Access] {
    /// Whether one of the reads is of `slot` of the registrar at `registrar` (compared in place: a copy
    /// of a read retains its references).
    @inline(__always)
    func contains(registrar: ObjectIdentifier, slot: SlotKey) -> Bool {
        for index in indices
        where ObjectIdentifier(self[index].registrar) == registrar && sameSlot(self[index].slot, slot) {
            return true
        }
        return false
    }

    /// Whether one of the reads is of a slot of the registrar at `registrar`.
    @inline(__always)
    func contains(registrar: ObjectIdentifier) -> Bool {
        for index in indices where ObjectIdentifier(self[index].registrar) == registrar {
            return true
        }
        return false
    }
}
