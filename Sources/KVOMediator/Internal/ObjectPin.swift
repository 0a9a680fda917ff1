/// A registration's reference to the object it observes (and a controller's to its observer, see
/// `WeakReference`): weak in effect (it never keeps the object
/// alive, and loads nil once the object has started deinitialising), but not a `weak` reference
/// where objects are native Swift objects only (see `WeakReference`): it keeps the object's memory
/// allocated (its unowned count) from creation until ``unpin()``, and a load tries to retain the
/// object in place. A `weak` reference would give every observed object a side table, one more
/// allocation per observed object, after which each retain and release of it takes the runtime's
/// slow path.
///
/// The memory is kept only while the registration can still use it: its owner unpins it once the
/// registration is cancelled and idle, so that a change record kept by the user (which keeps its
/// registration, for the key path) keeps no observed object's memory. Until then the object's
/// address cannot be reused by another object, so the address identifies it.
///
/// Loads and ``unpin()`` are the caller's to order: no load may start after ``unpin()``.
/// (Usable from inlinable code, so that a controller's delivery loads its observer with no call
/// beyond the runtime's.)
@usableFromInline
struct ObjectPin<Object: AnyObject> {
    #if canImport(ObjectiveC) || KVOMEDIATOR_APPLE_PATH
    @usableFromInline
    weak var _object: Object?
    /// The object's identity.
    let id: ObjectIdentifier

    init(_ object: Object) {
        self._object = object
        self.id = ObjectIdentifier(object)
    }

    /// The object, retained, unless it has started deinitialising.
    @inlinable
    func load() -> Object? { _object }

    func unpin() {}
    #else
    @usableFromInline
    let _address: UnsafeMutableRawPointer

    init(_ object: Object) {
        _address = Unmanaged.passUnretained(object).toOpaque()
        SwiftRuntime.pin(_address)
    }

    /// The object's identity.
    var id: ObjectIdentifier {
        unsafeBitCast(_address, to: ObjectIdentifier.self)
    }

    /// The object, retained, unless it has started deinitialising.
    @inlinable
    func load() -> Object? {
        guard SwiftRuntime.tryRetain(_address) else { return nil }
        return Unmanaged<Object>.fromOpaque(_address).takeRetainedValue()
    }

    /// Lets the object's memory go (once its deinit has run). Called once.
    func unpin() {
        SwiftRuntime.unpin(_address)
    }
    #endif
}
