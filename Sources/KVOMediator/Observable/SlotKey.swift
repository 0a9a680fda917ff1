/// Identifies an observable slot of an object.
enum SlotKey: Hashable {
    /// An `@Observed` property, by the byte offset of its storage in the object: what a setter can
    /// name with no key path at run time, and what typed and string key paths both reach.
    case field(Int)
    /// A property with custom storage, by the key path its getter reports (`accessValue(for:)`).
    case keyPath(AnyKeyPath)
    /// Not a slot: the root object's lifetime, for a registration that reads none of the root's slots
    /// (so that it still ends when the root object deinitialises).
    case lifetime
}

/// Slot equality, with `@Observed` fields (the common case) compared with no copy of either slot.
@inline(__always)
func sameSlot(_ lhs: SlotKey, _ rhs: SlotKey) -> Bool {
    if case .field(let left) = lhs, case .field(let right) = rhs { return left == right }
    return lhs == rhs
}
