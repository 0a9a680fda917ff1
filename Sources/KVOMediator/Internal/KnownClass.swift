/// A reference whose class the caller knows by construction (a tag stored beside it, the type that made
/// it, the registration that holds it), given back as that class without a check: a checked cast (`as!`)
/// looks the class up in the runtime's metadata on every call, on paths that run for every change.
///
/// Why it is sound: each caller says how it knows the class; a debug build still checks it (the
/// standard library's `unsafeDowncast` does, and stops on a wrong class), an optimised build does not.
@usableFromInline
enum KnownClass {
    /// `object`, which the caller knows to be a `T`, as one.
    @inlinable
    @inline(__always)
    static func cast<T: AnyObject>(_ object: AnyObject, to type: T.Type) -> T {
        unsafeDowncast(object, to: type)
    }
}

/// Restores the static type of a key path that crossed a protocol requirement as an `AnyKeyPath` (one
/// that non-final classes adopt cannot take a `KeyPath<Self, Value>`): a checked cast there looked up
/// `KeyPath<Self, Value>`'s metadata on each set. Unsafe: unchecked in optimised builds.
@usableFromInline
enum ErasedKeyPath {
    /// `keyPath`, which the caller knows to be a `KeyPath<Root, Value>`, as one.
    @inlinable
    @inline(__always)
    static func restore<Root, Value>(_ keyPath: AnyKeyPath, as type: KeyPath<Root, Value>.Type) -> KeyPath<Root, Value>
    {
        KnownClass.cast(keyPath, to: type)
    }
}

/// A value as type `U`: the value itself when `T` is `U` (a collection change's elements given to a
/// registration of that collection), else converted (`as!`: to `Any`, say). Why it is sound: the bit
/// cast is taken only after the check that the two types are one, which it spares the generic cast.
@inline(__always)
func reinterpret<T, U>(_ value: T, as type: U.Type) -> U {
    if T.self == U.self { return unsafeBitCast(value, to: U.self) }
    return value as! U
}
