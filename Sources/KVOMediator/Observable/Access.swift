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

    /// The slot these reads (one evaluation's) are, when they are one slot of `registrar` read through
    /// `keyPath` itself: one read, whose getter reported `keyPath` as its own. Such a key path *is* that
    /// property (no override or computed property in between, which a set through it would run). The one
    /// test of "this key path is exactly one property", wherever it is asked (a registration, a declared
    /// dependency, a collection proxy). Nil otherwise.
    func onlySlot(of registrar: KVORegistrar, readThrough keyPath: AnyKeyPath) -> SlotKey? {
        guard count == 1, self[0].registrar === registrar, sameKeyPath(self[0].wrapped, keyPath) else { return nil }
        return self[0].slot
    }

    /// The storage offset of the `@Observed` property these reads are (see `onlySlot(of:readThrough:)`).
    func onlyField(of registrar: KVORegistrar, readThrough keyPath: AnyKeyPath) -> Int? {
        guard case .field(let field)? = onlySlot(of: registrar, readThrough: keyPath) else { return nil }
        return field
    }
}
