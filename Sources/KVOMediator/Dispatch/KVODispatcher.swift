/// The one place registrations are created, started and ended, for every front end.
///
/// A registration lives in the registrars of the objects it depends on (found by evaluating its key
/// path while tracking reads); the front ends (``KVOController`` and the rest) keep only handles to
/// their registrations. The dispatcher holds no lock of its own and no global table: a change takes
/// only its object's lock, and callbacks run with no lock held.
@usableFromInline
struct KVODispatcher: Sendable {  // no state: a value, so that `shared` needs no lazy initialisation
    /// The shared dispatcher.
    @usableFromInline
    static let shared = KVODispatcher()

    private init() {}

    /// Creates a registration, not yet started, where its types are concrete: the public typed forms
    /// call it from inlinable code, so that its generic metadata is found once per call site rather
    /// than looked up per registration.
    @inlinable
    func _makeRegistration<Object: KeyValueObservable, Value>(
        _ object: Object,
        reader: TypedKVOInfo<Object, Value>.Reader,
        options: KVOOptions,
        owner: AnyObject?,
        box: _DeliveryBox
    ) -> TypedKVOInfo<Object, Value> {
        TypedKVOInfo(
            object: object,
            reader: reader,
            options: options,
            owner: owner,
            box: box,
            onObjectDeinit: nil,
            sameValues: options.contains(.distinct) ? _DistinctValues.test(for: Value.self) : nil
        )
    }

    /// `_makeRegistration(_:reader:options:owner:box:)` for a typed key path, given as its reading compiled
    /// where it is written (``TypedKVOInfo/_reading(_:)``).
    @inlinable
    func _makeRegistration<Object: KeyValueObservable, Value>(
        _ object: Object,
        reading: @escaping _KeyPathReading,
        options: KVOOptions,
        owner: AnyObject?,
        box: _DeliveryBox
    ) -> TypedKVOInfo<Object, Value> {
        // `.distinct`'s test made here, where `Value` is concrete (see `_DistinctValues`).
        TypedKVOInfo(
            object: object,
            reading: reading,
            options: options,
            owner: owner,
            box: box,
            sameValues: options.contains(.distinct) ? _DistinctValues.test(for: Value.self) : nil
        )
    }

    /// Starts a registration: subscribes it to what its key path reads. A key path that reads nothing
    /// observable ends it and throws.
    @usableFromInline
    @inline(__always)
    func start<Object: KeyValueObservable, Value>(
        _ info: TypedKVOInfo<Object, Value>,
        on object: Object
    ) throws(KVOError) {
        try start(info, on: object, readsValue: false) { _ in }
    }

    /// `start(_:on:)`, giving `reading` the value read (as the start's last step, with no lock held).
    @usableFromInline
    @inline(__always)
    func start<Object: KeyValueObservable, Value>(
        _ info: TypedKVOInfo<Object, Value>,
        on object: Object,
        reading: (Value) -> Void
    ) throws(KVOError) {
        try start(info, on: object, readsValue: true, reading)
    }

    @inline(__always)
    private func start<Object: KeyValueObservable, Value>(
        _ info: TypedKVOInfo<Object, Value>,
        on object: Object,
        readsValue: Bool,
        _ reading: (Value) -> Void
    ) throws(KVOError) {
        do {
            try info.start(on: object, readsValue: readsValue, reading: reading)
        } catch {
            end(info)
            throw error
        }
    }

    /// Ends a registration: none of its callbacks starts after this returns (called from inside one
    /// of its callbacks, it does not wait for callbacks running on other threads).
    @inline(__always)
    func end(_ info: KVOInfo) {
        info.cancel()
    }

    /// Creates a registration, not yet started (see `TypedKVOInfo.start(on:reading:)`); the caller
    /// records it first, so that no callback can reach a registration its owner does not know.
    ///
    /// `prepare` sees the registration before it starts (before any callback can run).
    func makeRegistration<Object: KeyValueObservable, Value>(
        _ object: Object,
        reader: TypedKVOInfo<Object, Value>.Reader,
        options: KVOOptions,
        owner: AnyObject?,
        stringKeyPath: String? = nil,
        box: _DeliveryBox,
        prepare: ((KVOInfo) -> Void)? = nil,
        onObjectDeinit: (() -> Void)? = nil
    ) -> TypedKVOInfo<Object, Value> {
        let info = TypedKVOInfo(
            object: object,
            reader: reader,
            options: options,
            owner: owner,
            box: box,
            onObjectDeinit: onObjectDeinit,
            // (Unspecialised here: these forms are the library's own, and a string key path's values are
            // compared boxed whatever the test.)
            sameValues: options.contains(.distinct) ? _DistinctValues.test(for: Value.self) : nil
        )
        info.stringKeyPath = stringKeyPath
        prepare?(info)
        return info
    }

    /// Ends registrations: none of their callbacks starts after this returns.
    func end(_ infos: some Sequence<KVOInfo>) {
        for info in infos {
            end(info)
        }
    }

    /// Ends registrations: none of their callbacks starts after this returns.
    func end(_ infos: InlineList<KVOInfo>) {
        infos.forEachElement { end($0) }
    }
}
