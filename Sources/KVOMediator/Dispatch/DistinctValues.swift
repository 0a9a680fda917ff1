/// `.distinct`'s question of a change: is its new value its old one? `(old, new, type)`: the addresses
/// of the two values, each of type `type` (as `_Delivery` is given them).
@usableFromInline
typealias _SameValues = (ValueAddress, ValueAddress, Any.Type) -> Bool

/// When two values are the same for ``KVOOptions/distinct``: an object reference (or an optional one)
/// by identity, even when its class is `Equatable`; another `Equatable` value by `==`; a value of an
/// existential type (`Any`, a string key path's) by what it holds, with the same rules; and any other
/// value never, so that its changes are always delivered.
@usableFromInline
enum _DistinctValues {
    /// How values of one type are compared.
    @usableFromInline
    enum Kind {
        /// An object reference, or an optional one: one word, compared as it is.
        case identity
        /// `==`.
        case equatable
        /// By the dynamic types of the values (an existential, or a type that is none of the above).
        case dynamic
    }

    /// The test for a registration whose values are `Value`s, made where `Value` is concrete (the inlinable
    /// registration makers, in the caller's module), so that `==` is called directly. A set's values
    /// of another type (a chain's leaf, whose key path adds an optional) are compared boxed.
    @inlinable
    static func test<Value>(for _: Value.Type) -> _SameValues {
        switch kind(of: Value.self) {
        case .identity:
            return { old, new, type in
                type == Value.self ? old.isSameWord(as: new) : sameBoxed(old, new, type: type)
            }
        case .equatable:
            if let equatable = Value.self as? any Equatable.Type { return test(forEquatable: equatable) }
            return sameBoxed
        case .dynamic:
            return sameBoxed
        }
    }

    @inlinable
    static func test<Value: Equatable>(forEquatable _: Value.Type) -> _SameValues {
        { old, new, type in
            type == Value.self ? old.load(as: Value.self) == new.load(as: Value.self) : sameBoxed(old, new, type: type)
        }
    }

    /// Whether the values at `old` and `new`, of type `type`, are the same (boxed: see `same`). Apart from
    /// the tests above, so that a test's common case makes no frame.
    @usableFromInline
    static func sameBoxed(_ old: ValueAddress, _ new: ValueAddress, type: Any.Type) -> Bool {
        same(old.loadBoxed(as: type), new.loadBoxed(as: type))
    }

    /// How values of `type` are compared (asked once, when a registration is made).
    @usableFromInline
    static func kind(of type: Any.Type) -> Kind {
        if isReference(type) { return .identity }
        return type is any Equatable.Type ? .equatable : .dynamic
    }

    /// Whether `type` is a class, or an optional of one (at any depth): one word, the object's address or
    /// a nil's pattern, which tells two values apart exactly as identity and nil-ness do.
    private static func isReference(_ type: Any.Type) -> Bool {
        func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
        guard _openExistential(type, do: size) == MemoryLayout<UInt>.size else { return false }
        var current = type
        while let optional = current as? any OptionalType.Type { current = optional.wrappedType }
        return current is AnyClass
    }

    /// Whether two boxed values are the same, by the rules above applied to what they hold: optionals level
    /// by level (both nil at the same level are the same), objects by identity, `Equatable` values of one
    /// type by `==`; anything else is not the same.
    @usableFromInline
    static func same(_ old: Any, _ new: Any) -> Bool {
        let valueType = type(of: old)
        guard valueType == type(of: new) else { return false }
        if let optional = valueType as? any OptionalType.Type {
            switch (optional.wrappedOnce(of: old), optional.wrappedOnce(of: new)) {
            case (nil, nil): return true
            case (let old?, let new?): return same(old, new)
            default: return false
            }
        }
        if valueType is AnyClass { return (old as AnyObject) === (new as AnyObject) }
        guard let old = old as? any Equatable else { return false }
        return old.isEqual(toBoxed: new)
    }
}

extension Equatable {
    /// `self == other`, for an `other` of this type boxed as `Any`.
    fileprivate func isEqual(toBoxed other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
