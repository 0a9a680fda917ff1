/// A set of the `@Observed` property at `field` of `object`, whose registrar is `registrar`, with the
/// setter's old and new values (of `type`) by address, valid until the set returns.
struct LinkChange {
    /// Unretained: the setter holds it.
    let object: ObjectAddress
    /// Unretained: the object being set holds it.
    let registrar: Unretained<KVORegistrar>
    let field: Int
    let oldValue: ValueAddress
    let newValue: ValueAddress
    let type: Any.Type
    /// The one registration's strategy for it (``ChangeStrategy/chainLink``, ``ChangeStrategy/computed`` or
    /// ``ChangeStrategy/full``: not one that takes the setter's values).
    let strategy: ChangeStrategy

    init(
        _ object: AnyObject,
        _ registrar: KVORegistrar,
        _ field: Int,
        _ values: (ValueAddress, ValueAddress),
        _ type: Any.Type,
        _ strategy: ChangeStrategy
    ) {
        self.object = ObjectAddress(object)
        self.registrar = Unretained(registrar)
        (self.field, self.oldValue, self.newValue, self.type) = (field, values.0, values.1, type)
        self.strategy = strategy
    }

    /// Whether the set object's registrar is `registrar`.
    func isOn(_ registrar: Unretained<KVORegistrar>) -> Bool {
        self.registrar.id == registrar.id
    }

    /// Whether the set object has started deinitialising (a set made by its deinit).
    var objectIsDeinitialising: Bool {
        object.with { SwiftRuntime.isDeinitialising($0) }
    }
}
