import Foundation

/// How a registration calls back: a box holding the callback and what it needs (the observer's
/// reference, for a controller), and a function specialised for the concrete types, built where
/// they are known (in the caller's module for the public `observe` forms), so that a change runs
/// no generic code on its way to the callback.
///
/// One allocation per registration: the function captures nothing and finds the callback in the box
/// it is given. A registration holds its box unmanaged and calls it inside its gate, where the box
/// cannot be released (see `KVOInfo`), so a delivery does no reference counting; the registration
/// releases the box once it is cancelled and idle, dropping what the callback captures.
@usableFromInline
class _DeliveryBox: @unchecked Sendable {  // immutable; subclasses hold only immutable callbacks
    @usableFromInline
    let deliver: _Delivery

    @usableFromInline
    init(deliver: @escaping _Delivery) {
        self.deliver = deliver
    }
}

/// Calls back with one record: `(box, object, old, new, type, isPrior, holder)`.
///
/// - With `type`, `old` and `new` are the addresses of values of that type (nil when not asked for):
///   a set's own values. The function loads them as its value type, converting if `type` differs.
/// - With `type` `_CollectionParts.self`, `new` is the address of a collection mutation's
///   `_CollectionParts` and `old` is nil: the function builds the record with its kind and indexes.
/// - With no `type`, `new` is the address of a whole `KVOChange` of the function's value type, built
///   by the registration (initial records, re-read values) and `old` is nil.
///
/// `holder` is the registration, which the record holds for its key path: lent for the call, with no
/// retain, when the function builds the record (`_withDelivered`).
@usableFromInline
typealias _Delivery = (
    _DeliveryBox, AnyObject, ValueAddress?, ValueAddress?, Any.Type?, Bool, _KeyPathHolder
) -> Void

extension KVOChange {
    /// The record a `_Delivery` is given (see there).
    @inlinable
    static func _delivered(
        old: ValueAddress?,
        new: ValueAddress?,
        type: Any.Type?,
        isPrior: Bool,
        holder: _KeyPathHolder?
    ) -> KVOChange<Value> {
        guard let type else { return new.unsafelyUnwrapped.load(as: KVOChange<Value>.self) }
        // (A collection's record first: a comparison with a type that is not generic, where the next one
        // looks up `Value`'s metadata.)
        if type == _CollectionParts.self {
            return _collectionRecord(at: new.unsafelyUnwrapped, isPrior: isPrior, holder: holder)
        }
        if type == Value.self {
            return KVOChange(
                settingFrom: old.map { $0.load(as: Value.self) },
                to: new.map { $0.load(as: Value.self) },
                isPrior: isPrior,
                holder: holder
            )
        }
        return KVOChange(
            settingFrom: old.map { $0.loadBoxed(as: type) as! Value },
            to: new.map { $0.loadBoxed(as: type) as! Value },
            isPrior: isPrior,
            holder: holder
        )
    }
}

extension KVOChange {
    /// Calls `body` with the record a `_Delivery` is given (see `_delivered`): one it builds is lent
    /// `holder` for the call (`_lending(_:to:_:)`); one the registration built holds its own retain.
    @inlinable
    @inline(__always)
    static func _withDelivered(
        old: ValueAddress?,
        new: ValueAddress?,
        type: Any.Type?,
        isPrior: Bool,
        holder: _KeyPathHolder,
        _ body: (KVOChange<Value>) -> Void
    ) {
        guard type != nil else {
            return body(_delivered(old: old, new: new, type: type, isPrior: isPrior, holder: holder))
        }
        var change = _delivered(old: old, new: new, type: type, isPrior: isPrior, holder: nil)
        _lending(holder, to: &change, body)
    }

    /// Calls `body` with `record`, built with no holder, holding `holder` (a registration, which the caller
    /// keeps alive for the call: it delivers inside the registration's gate) with no retain; `record`
    /// holds none again after. A record `body` keeps is a copy, which retains `holder` as any copy does.
    @inlinable
    @inline(__always)
    static func _lending(
        _ holder: _KeyPathHolder,
        to record: inout KVOChange<Value>,
        _ body: (KVOChange<Value>) -> Void
    ) {
        assert(record._keyPathHolder == nil)
        _withLent(holder, asFirstReferenceOf: &record, body)
    }
}

extension KVOChange {
    /// The record of a collection mutation given in parts, at `address` (see `_Delivery`). Not inlined, so
    /// that `_delivered` stays small enough to be inlined into the box's function for a setting.
    @inlinable
    @inline(never)
    static func _collectionRecord(at address: ValueAddress, isPrior: Bool, holder: _KeyPathHolder?) -> KVOChange<Value>
    {
        let parts = address.load(as: _CollectionParts.self)
        func value(at address: ValueAddress?) -> Value? {
            guard let address else { return nil }
            return parts.type == Value.self ? address.load(as: Value.self) : address.loadBoxed(as: parts.type) as! Value
        }
        return KVOChange(
            kind: parts.kind,
            oldValue: value(at: parts.old),
            newValue: value(at: parts.new),
            indexes: parts.indexes,
            isPrior: isPrior,
            holder: holder
        )
    }
}

/// A callback given the object and the record (tokens, and the library's own front ends).
@usableFromInline
final class _HandlerBox<Object: AnyObject, Value>: _DeliveryBox, @unchecked Sendable {  // immutable
    @usableFromInline
    let handler: (Object, KVOChange<Value>) -> Void

    @inlinable
    init(_ handler: @escaping (Object, KVOChange<Value>) -> Void) {
        self.handler = handler
        super.init { box, object, old, new, type, isPrior, holder in
            KVOChange<Value>._withDelivered(old: old, new: new, type: type, isPrior: isPrior, holder: holder) {
                KnownClass.cast(box, to: _HandlerBox<Object, Value>.self).handler(
                    KnownClass.cast(object, to: Object.self),
                    $0
                )
            }
        }
    }
}

/// A controller's block: given the observer, loaded from the controller's one reference to it when
/// the block is about to run (and not run once the observer has gone or is deinitialising).
@usableFromInline
final class _ObserverBlockBox<Observer: AnyObject, Object: AnyObject, Value>: _DeliveryBox, @unchecked Sendable {
    @usableFromInline
    let observer: WeakReference<Observer>
    @usableFromInline
    let block: (Observer, Object, KVOChange<Value>) -> Void

    @inlinable
    init(observer: WeakReference<Observer>, block: @escaping (Observer, Object, KVOChange<Value>) -> Void) {
        self.observer = observer
        self.block = block
        super.init { box, object, old, new, type, isPrior, holder in
            let box = KnownClass.cast(box, to: _ObserverBlockBox<Observer, Object, Value>.self)
            guard let observer = box.observer.object else { return }
            KVOChange<Value>._withDelivered(old: old, new: new, type: type, isPrior: isPrior, holder: holder) {
                box.block(observer, KnownClass.cast(object, to: Object.self), $0)
            }
        }
    }

    /// The box of a block for a string key path observed as a type of the caller's
    /// (``KVOController/observe(_:keyPath:as:options:file:line:block:)``): the registration is the string key
    /// path's own, whose values are `Any`; its records reach the block with each value cast to `Value` (nil
    /// when it is nil or of another type). A value given as a `Value` is loaded as one, with no box and no cast.
    @inlinable
    init(observer: WeakReference<Observer>, castingFor block: @escaping (Observer, Object, KVOChange<Value>) -> Void) {
        self.observer = observer
        self.block = block
        super.init { box, object, old, new, type, isPrior, holder in
            let box = KnownClass.cast(box, to: _ObserverBlockBox<Observer, Object, Value>.self)
            guard let observer = box.observer.object else { return }
            let object = KnownClass.cast(object, to: Object.self)
            guard let type else {
                // A record the registration built: of its own values, `Any`.
                return box.block(observer, object, KVOChange<Any>._casting(new.unsafelyUnwrapped, to: Value.self))
            }
            var change = KVOChange<Value>._casting(old: old, new: new, type: type, isPrior: isPrior)
            KVOChange<Value>._lending(holder, to: &change) { box.block(observer, object, $0) }
        }
    }
}
