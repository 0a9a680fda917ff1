/// A weak reference that can cross threads: loading it is atomic, and only the loader uses the object.
///
/// Loading gives nil once the object has started deinitialising, as a `weak` load does. Where objects
/// are native Swift objects only (not on Apple platforms, where an observer may be an Objective-C
/// object), it is not a `weak` reference but an unowned one, which keeps the object's memory (not the
/// object) allocated, and a load tries to retain the object in place. A `weak` reference would give
/// the object a side table, after which every retain and release of it, ours included, takes the
/// runtime's slow path: on a notification, that and the weak load itself cost more than the rest of
/// the delivery together.
@usableFromInline
final class WeakReference<Object: AnyObject>: @unchecked Sendable {  // loads are atomic; the rest is immutable
    /// Pinned for as long as this reference exists (see `ObjectPin`).
    @usableFromInline
    let _pin: ObjectPin<Object>

    @usableFromInline
    init(_ object: Object) {
        self._pin = ObjectPin(object)
    }

    deinit {
        _pin.unpin()
    }

    /// The object, retained, unless it has started deinitialising.
    @inlinable
    var object: Object? { _pin.load() }
}
