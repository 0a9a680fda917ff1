import Foundation

// The records of a string key path observed as a type of the caller's
// (``KVOController/observe(_:keyPath:as:options:file:line:block:)``, whose box is `_ObserverBlockBox`'s
// `init(observer:castingFor:)`): the string form's records, each value cast to that type.

extension KVOChange {
    /// The record of values at `old` and `new` (of `type`, or a collection mutation's parts: see `_Delivery`),
    /// each cast to `Value`, with no holder yet (see `_lending(_:to:_:)`).
    @inlinable
    @inline(__always)
    static func _casting(old: ValueAddress?, new: ValueAddress?, type: Any.Type, isPrior: Bool) -> KVOChange<Value> {
        if type == _CollectionParts.self { return _castingParts(at: new.unsafelyUnwrapped, isPrior: isPrior) }
        return KVOChange(
            settingFrom: _cast(at: old, of: type),
            to: _cast(at: new, of: type),
            isPrior: isPrior,
            holder: nil
        )
    }

    /// `_casting` for a collection mutation's parts, at `address`. (Out of line, as `_collectionRecord`.)
    @inlinable
    @inline(never)
    static func _castingParts(at address: ValueAddress, isPrior: Bool) -> KVOChange<Value> {
        let parts = address.load(as: _CollectionParts.self)
        return KVOChange(
            kind: parts.kind,
            oldValue: _cast(at: parts.old, of: parts.type),
            newValue: _cast(at: parts.new, of: parts.type),
            indexes: parts.indexes,
            isPrior: isPrior,
            holder: nil
        )
    }

    /// The value at `address`, of `type`, as a `Value`: loaded as one when it is one, else cast (nil when
    /// it is not one).
    @inlinable
    @inline(__always)
    static func _cast(at address: ValueAddress?, of type: Any.Type) -> Value? {
        guard let address else { return nil }
        if type == Value.self { return address.load(as: Value.self) }
        return address.loadBoxed(as: type) as? Value
    }
}

extension KVOChange where Value == Any {
    /// The record at `address`, a registration's record of `Any` values, with each value cast to `Target`
    /// (nil when it is nil or of another type), holding the same key path.
    @inlinable
    static func _casting<Target>(_ address: ValueAddress, to _: Target.Type) -> KVOChange<Target> {
        let record = address.load(as: KVOChange<Any>.self)
        return KVOChange<Target>(
            kind: record.kind,
            oldValue: record.oldValue.flatMap { $0 as? Target },
            newValue: record.newValue.flatMap { $0 as? Target },
            indexes: record._indexes,
            isPrior: record.isPrior,
            holder: record._keyPathHolder
        )
    }
}
