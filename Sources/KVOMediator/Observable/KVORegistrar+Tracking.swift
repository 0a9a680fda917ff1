import Synchronization

extension KVORegistrar {
    /// True while a tracker may be installed on this thread (with glibc; elsewhere, on any thread): only
    /// then need a getter report its read. (The count is a C variable, read with one call: see
    /// `SwiftRuntime.trackersRunning`.)
    @inlinable
    static var _isTracking: Bool {
        SwiftRuntime.trackersRunning
    }

    /// True while this thread makes one of the library's own reads (an `.initial` value, an old value:
    /// see `untracked`), which Swift's Observation must not track either. (A thread-local C variable,
    /// read with one call: see `SwiftRuntime.isReadingForLibrary`.)
    @inlinable
    static var _isReadingForLibrary: Bool {
        SwiftRuntime.isReadingForLibrary
    }

    /// True while this thread tracks reads (an observation is being set up or re-evaluated on it).
    @usableFromInline
    var _isTrackingOnThisThread: Bool {
        ThreadContext.isTracking
    }

    /// Reports a read of the `@Observed` property whose storage is at `field` in `object`, which
    /// `wrapped` gives the key path of, to the tracker active on this thread, if any.
    /// What the property declares affects it is read with it (``AccessTracker/readDeclared(affecting:field:of:)``).
    ///
    /// The key path comes from a closure, called only when it is needed (a read not expected, or of a
    /// property whose class declares something): a key path passed as a value is made, and released, by
    /// the getter on every read, tracked or not (a call into the key-path runtime, about 70 instructions
    /// with its reference counting), where a closure that returns the compiler's literal is made at
    /// compile time.
    @usableFromInline
    func _access<Object: KeyValueObservable>(field: Int, of object: Object, wrapped: () -> AnyKeyPath) {
        ThreadContext.withCurrentTracker(as: ReadRecorder.self) { recorder in
            recorder.readField(field, of: object, on: self, wrapped: wrapped)
        }
    }

    /// Reports a read of a property with custom storage, named by `keyPath` (``KeyValueObservable/accessValue(for:)``),
    /// with what it declares affects it.
    func access<Object: KeyValueObservable>(customStorage keyPath: AnyKeyPath, of object: Object) {
        ThreadContext.withCurrentTracker(as: ReadRecorder.self) { recorder in
            recorder.readCustomStorage(keyPath, of: object, on: self)
        }
    }

    /// Reports a read of the `@Observed` property whose storage is at `field` in `object`, read by name
    /// (string key paths).
    func access(field: Int, of object: AnyObject) {
        ThreadContext.withCurrentTracker(as: ReadRecorder.self) { recorder in
            recorder.readField(field, named: object, on: self)
        }
    }
}

extension KVORegistrar {
    /// The key path and the class an `@Observed` slot was subscribed with (see `recordListed`).
    func subscribedFacts(field: Int) -> (wrapped: AnyKeyPath?, objectType: AnyObject.Type?) {
        withState { state in
            (state.entryIndex(for: .field(field)).flatMap { state.entry(at: $0).wrapped }, state.ownerType)
        }
    }
}
