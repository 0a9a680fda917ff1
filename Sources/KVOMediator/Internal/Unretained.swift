/// A reference to an object that holds no retain: the engine's references to registrars, whose memory
/// something else keeps (a registration's lock, under which a registrar's deinit ends every
/// dependency on it before its memory goes; or the caller, who holds the object).
///
/// Why it is sound: every use is where that keeper is known to hold, as the holder's comment says;
/// a call that may outlive it takes a retain first (``retainedIfAlive()``), which fails once the object
/// has started deinitialising. Walking such references then costs no reference counting at all.
@usableFromInline
@frozen
struct Unretained<Object: AnyObject> {
    @usableFromInline
    let unmanaged: Unmanaged<Object>

    @inlinable
    @inline(__always)
    init(_ object: Object) {
        unmanaged = .passUnretained(object)
    }

    @inlinable
    @inline(__always)
    init(unmanaged: Unmanaged<Object>) {
        self.unmanaged = unmanaged
    }

    /// The object's identity (its address).
    @inlinable
    @inline(__always)
    var id: ObjectIdentifier {
        unmanaged._withUnsafeGuaranteedRef { ObjectIdentifier($0) }
    }

    /// Calls `body` with the object, which the caller knows alive, with no retain.
    @inlinable
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

    /// Gives back a retain taken by ``retainedIfAlive()``.
    @inlinable
    @inline(__always)
    func release() {
        unmanaged.release()
    }
}
