/// A set of an `@Observed` property found by its name (``KeyValueObservable/setValue(_:atKeyPath:)-(Any?,_)``):
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
    /// as the setter's own slow path (`_setObserved`) makes it. `registrarOffset` is where the object's
    /// class stores a `kvoRegistrar`, if it does (see `store`).
    static func set(
        _ newValue: Any?,
        field: Int,
        of object: some KeyValueObservable,
        registrarAt registrarOffset: Int?
    ) -> Bool {
        // A value exactly of the declared type (the common case) is stored from where it lies in the
        // existential, with no cast and no `Value?` (whose metadata this unspecialised code would look up).
        if let newValue, type(of: newValue) == Value.self {
            func open<Given>(_ given: Given) -> Value { reinterpret(given, as: Value.self) }
            return store(_openExistential(newValue, do: open), field: field, of: object, registrarAt: registrarOffset)
        }
        return setConverting(newValue, field: field, of: object, registrarAt: registrarOffset)
    }

    /// `set` of a value of the static type `Given`: stored as it is when `Given` is `Value` (no box, no
    /// cast); otherwise set as the same value passed as `Any?` would be.
    static func set<Given>(
        given value: Given,
        field: Int,
        of object: some KeyValueObservable,
        registrarAt registrarOffset: Int?
    ) -> Bool {
        if Given.self == Value.self, !SetArgument.isOptionalAny(Given.self) {
            return store(value, field: field, of: object, registrarAt: registrarOffset)
        }
        return set(SetArgument.asOptionalAny(value), field: field, of: object, registrarAt: registrarOffset)
    }

    /// `set` of a value not exactly a `Value` (nil, a subclass instance, a value for an existential):
    /// apart, so that the exact case does not prepare this cast's `Value?`.
    @inline(never)
    private static func setConverting(
        _ newValue: Any?,
        field: Int,
        of object: some KeyValueObservable,
        registrarAt registrarOffset: Int?
    ) -> Bool {
        guard let value = valueForSet(newValue, as: Value.self) else { return false }
        return store(value, field: field, of: object, registrarAt: registrarOffset)
    }

    /// Stores `value`, whose type `Stored` is `Value` (taken as it is: a value cast to `Value` first
    /// would be one more copy in this unspecialised code).
    ///
    /// The registrar is the one stored at `registrarOffset`, read with no call of the getter (which takes
    /// a retain and gives it back: two atomic operations), once it is known to be the one the getter gives
    /// (``KVORegistrar/verifyStored(in:)`` found it so, or a set here did): a subclass's override of a
    /// `var kvoRegistrar` would give another. Then a set of an object nobody observes only stores, as the
    /// typed setter does, with no retain; a set that announces holds a retain of it while it runs, since
    /// a callback may replace a `var` registrar. Until then, the getter gives it.
    private static func store<Stored>(
        _ value: Stored,
        field: Int,
        of object: some KeyValueObservable,
        registrarAt registrarOffset: Int?
    ) -> Bool {
        guard let registrarOffset else { return storeVerifying(value, field: field, of: object, stored: nil) }
        let stored = ObjectAddress(object).reference(atField: registrarOffset, as: KVORegistrar.self)
        guard stored.with({ $0.storedVerified.load(ordering: .relaxed) }) else {
            return storeVerifying(value, field: field, of: object, stored: stored.id)
        }
        guard stored.with({ $0._hasObservers }) else { return storeOnly(value, field: field, of: object) }
        // (Retained while the set announces: a callback may replace a `var` registrar, freeing this one.)
        let registrar = stored.object
        setObserved(value, field: field, of: object, registrar: registrar)
        return true
    }

    /// `store`, with the registrar the getter gives, retained: noted as the one its class stores (the
    /// registrar identified by `stored`, if given) when it is.
    @inline(never)
    private static func storeVerifying<Stored>(
        _ value: Stored,
        field: Int,
        of object: some KeyValueObservable,
        stored: ObjectIdentifier?
    ) -> Bool {
        let registrar = object.kvoRegistrar
        if let stored, stored == ObjectIdentifier(registrar) {
            registrar.storedVerified.store(true, ordering: .relaxed)
        }
        return store(value, field: field, of: object, registrar: registrar)
    }

    /// `store`, with the object's registrar.
    @inline(__always)
    private static func store<Stored>(
        _ value: Stored,
        field: Int,
        of object: AnyObject,
        registrar: KVORegistrar
    ) -> Bool {
        guard registrar._hasObservers else { return storeOnly(value, field: field, of: object) }
        setObserved(value, field: field, of: object, registrar: registrar)
        return true
    }

    /// The store alone, as the typed setter makes it on an object nobody observes.
    @inline(__always)
    private static func storeOnly<Stored>(_ value: Stored, field: Int, of object: AnyObject) -> Bool {
        assert(Stored.self == Value.self)
        FieldAddress(of: object, at: field).pointer(to: Stored.self).pointee = value
        return true
    }

    /// `_setObserved`, for the commonest types through the setter specialised for each here (a test of
    /// the type each). In this unspecialised code the generic setter copies the old and new values
    /// through their type's value witnesses and closures, about 200 instructions more than the
    /// specialised one. (Inlined in `store`: a frame of its own cost 23 more.)
    @inline(__always)
    private static func setObserved<Stored>(
        _ value: Stored,
        field: Int,
        of object: AnyObject,
        registrar: KVORegistrar
    ) {
        assert(Stored.self == Value.self)
        // (Written out for each: through one generic helper, the call was not specialised.)
        switch ObjectIdentifier(Stored.self) {
        case ObjectIdentifier(Int.self):
            Observed<Int>._setObserved(object, to: reinterpret(value, as: Int.self), registrar: registrar, field: field)
        case ObjectIdentifier(Double.self):
            Observed<Double>._setObserved(
                object,
                to: reinterpret(value, as: Double.self),
                registrar: registrar,
                field: field
            )
        case ObjectIdentifier(Bool.self):
            Observed<Bool>._setObserved(
                object,
                to: reinterpret(value, as: Bool.self),
                registrar: registrar,
                field: field
            )
        case ObjectIdentifier(String.self):
            Observed<String>._setObserved(
                object,
                to: reinterpret(value, as: String.self),
                registrar: registrar,
                field: field
            )
        default:
            Observed<Stored>._setObserved(object, to: value, registrar: registrar, field: field)
        }
    }
}
