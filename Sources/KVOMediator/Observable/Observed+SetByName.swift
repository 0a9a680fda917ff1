/// A set of an `@Observed` property found by its name (``KeyValueObservable/setValue(_:atKeyPath:)``):
/// the storage subscript's setter, step for step, for a property named by its storage's offset instead
/// of by key paths, so that it announces exactly what a typed set announces.
extension Observed {
    /// Sets the `Observed<Value>` storage at byte offset `field` of `object` to `newValue` as the
    /// subscript's setter does; false, with nothing set, when `newValue` is not a `Value` (as Swift's
    /// `as?` decides: nil is a value of an optional `Value` only, a subclass instance is a value of its
    /// base class's type, and no number converts to another number type).
    ///
    /// The caller found `field` by name in `object`'s class (`ObservedFields`), whose field metadata
    /// says the storage there is an `Observed<Value>`: the store is of that type, through its address,
    /// as the setter's own slow path (`_setObserved`) makes it.
    static func set(_ newValue: Any?, field: Int, of object: some KeyValueObservable) -> Bool {
        guard let value = exactly(newValue) ?? newValue as? Value else { return false }
        let registrar = object.kvoRegistrar
        guard registrar._hasObservers else {
            FieldAddress(of: object, at: field).pointer(to: Self.self).pointee.value = value
            return true
        }
        _setObserved(object, to: value, registrar: registrar, field: field)
        return true
    }

    /// `newValue` when it is exactly a `Value` (the common case): told by comparing its type, where the
    /// cast (`as?`) costs two runtime casts, out of the optional and out of the existential.
    private static func exactly(_ newValue: Any?) -> Value? {
        guard let newValue else { return nil }
        func open<Given>(_ given: Given) -> Value? {
            Given.self == Value.self ? reinterpret(given, as: Value.self) : nil
        }
        return _openExistential(newValue, do: open)
    }
}
