/// A reference to an object that holds no retain: the engine's references to registrars, whose memory
/// something else keeps (a registration's lock, under which a registrar's deinit ends every
/// dependency on it before its memory goes; or the caller, who holds the object). Or one that holds a
/// retain its holder gives back by hand (``init(retaining:)``): a registration's callback box, called
/// inside the registration's gate, where it cannot be released, so that a delivery costs no reference
/// counting.
///
/// Why it is sound: every use is where that keeper is known to hold, as the holder's comment says;
/// a call that may outlive it takes a retain first (``retainedIfAlive()``), which fails once the object
/// has started deinitialising. Walking such references then costs no reference counting at all.
struct Unretained<Object: AnyObject> {
    let unmanaged: Unmanaged<Object>

    /// (Borrowed, so that an unoptimised build does not retain the object to pass it: it may be
    /// deinitialising, as for ``id``.)
    @inline(__always)
    init(_ object: __shared Object) {
        unmanaged = .passUnretained(object)
    }

    /// The reference with a retain taken for its holder, which gives it back with ``release()`` once.
    @inline(__always)
    init(retaining object: __shared Object) {
        unmanaged = .passRetained(object)
    }

    @inline(__always)
    init(unmanaged: Unmanaged<Object>) {
        self.unmanaged = unmanaged
    }

    /// The object's identity (its address), from the bits alone: it may be asked while the object is
    /// deinitialising (a registrar's deinit ends the dependencies on it), when a retain, which an
    /// unoptimised build makes of any reference it passes on, must not happen.
    @inline(__always)
    var id: ObjectIdentifier {
        unsafeBitCast(unmanaged.toOpaque(), to: ObjectIdentifier.self)
    }

    /// The object, which the caller knows alive, as a strong reference of its own.
    @inline(__always)
    var object: Object {
        unmanaged.takeUnretainedValue()
    }

    /// Calls `body` with the object, which the caller knows alive, with no retain.
    @inline(__always)
    func with<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        try unmanaged._withUnsafeGuaranteedRef(body)
    }

    /// The same reference with a retain taken, unless the object has started deinitialising; the
    /// caller gives the retain back with ``release()``.
    @inline(__always)
    func retainedIfAlive() -> Unretained? {
        SwiftRuntime.tryRetain(unmanaged.toOpaque()) ? self : nil
    }

    /// The object, taking over a retain taken by ``retainedIfAlive()``.
    @inline(__always)
    func takeRetained() -> Object {
        unmanaged.takeRetainedValue()
    }

    /// Gives back a retain taken by ``retainedIfAlive()`` or ``init(retaining:)``.
    @inline(__always)
    func release() {
        unmanaged.release()
    }
}

/// Calls `body` with `value`, whose first stored property, an optional reference holding nil, holds
/// `lent` for the call without a retain, and nil again after it.
///
/// A reference lent, as ``Unretained`` holds one: how a registration's record is given to its callback
/// with no reference counting of the registration. `body` receives the value borrowed, as any argument;
/// a copy it keeps retains `lent` as every copy does. Why it is sound: the caller keeps `lent` alive for
/// the length of the call (a registration delivering inside its gate), nothing can move `value` out while
/// `body` borrows it, and `value` is destroyed only after the property is nil again, so nothing is
/// released that was not retained. The caller guarantees the property is the first (its type's layout is
/// tested).
@inlinable
@inline(__always)
func _withLent<Value, Object: AnyObject>(
    _ lent: Object,
    asFirstReferenceOf value: inout Value,
    _ body: (Value) -> Void
) {
    _withUnprotectedUnsafeMutablePointer(to: &value) { pointer in
        let first = UnsafeMutableRawPointer(pointer)
        assert(first.load(as: UInt.self) == 0)
        first.storeBytes(of: Unmanaged.passUnretained(lent), as: Unmanaged<Object>.self)
        body(pointer.pointee)
        first.storeBytes(of: nil, as: Unmanaged<Object>?.self)
    }
}
