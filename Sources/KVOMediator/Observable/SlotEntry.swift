/// The registrations that depend on one slot.
struct SlotEntry {
    var slot: SlotKey
    /// For an `@Observed` property read through a typed key path, that key path (which names
    /// the property precisely enough to tell a plain chain from a computed property).
    var wrapped: AnyKeyPath?
    var infos: SlotObservers
}
