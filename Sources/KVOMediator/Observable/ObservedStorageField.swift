/// Where an `@Observed` property's storage lies in its object: what lets a collection proxy change the
/// property's value in place, as `Array`'s and `Set`'s own mutating methods do, where a change through
/// the property's key path (get, mutate, set) would copy the whole collection each time.
@usableFromInline
struct ObservedStorageField {
    /// The byte offset of the property's `Observed<Value>` in its object.
    @usableFromInline
    let field: Int

    /// The storage of the `@Observed` property that `keyPath` is, on `object`; nil unless evaluating
    /// `keyPath` reads exactly one slot, an `@Observed` property of `object` that reported the read
    /// through this same key path. That key path then *is* the property (no override or computed
    /// property in between, which a set through the key path would run), and its storage lies where the
    /// property's getter reported it, for as long as the object lives.
    init?<Object: KeyValueObservable, Value>(of keyPath: KeyPath<Object, Value>, on object: Object) {
        let reads = ReadProbe.reads(of: keyPath, on: object)
        guard let field = reads.onlyField(of: object.kvoRegistrar, readThrough: keyPath) else { return nil }
        self.field = field
    }

    /// Calls `body` with the property's value on `object` (the object it was found on), read in place:
    /// no reference to the collection's storage outlives the call, so a mutation after it finds the
    /// storage unique.
    @inlinable
    @inline(__always)
    func withValue<Value, Result>(of object: AnyObject, as type: Value.Type, _ body: (Value) -> Result) -> Result {
        body(FieldAddress(of: object, at: field).pointer(to: Observed<Value>.self).pointee.value)
    }

    /// Applies `body` to the property's value in place, on `object` (the object it was found on).
    @inlinable
    @inline(__always)
    func mutate<Value, Result>(
        of object: AnyObject,
        as type: Value.Type,
        _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        try FieldAddress(of: object, at: field).mutate(as: Observed<Value>.self) { try body(&$0.value) }
    }
}
