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
