/// The one place registrations are created, started and ended, for every front end.
///
/// A registration lives in the registrars of the objects it depends on (found by evaluating its key
/// path while tracking reads); the front ends (``KVOController`` and the rest) keep only handles to
/// their registrations. The dispatcher holds no lock of its own and no global table: a change takes
/// only its object's lock, and callbacks run with no lock held.
final class KVODispatcher: Sendable {
    /// The shared dispatcher.
    static let shared = KVODispatcher()

    private init() {}

    /// Creates and starts a registration; the caller records it, then calls `deliverInitial`.
    ///
    /// `prepare` sees the registration before it starts (before any callback can run).
    ///
    /// - Throws: ``KVOError`` when the key path reads nothing observable.
    /// - Parameter needsValue: Whether the caller uses the value (see `TypedKVOInfo.start`).
    /// - Returns: The registration and the value read while subscribing (for `.initial`); nil only when
    ///   not needed.
    func register<Object: KeyValueObservable, Value>(
        _ object: Object,
        reader: TypedKVOInfo<Object, Value>.Reader,
        options: KVOOptions,
        owner: (any KVOInfoOwner)?,
        stringKeyPath: String? = nil,
        box: _DeliveryBox,
        prepare: ((KVOInfo) -> Void)? = nil,
        onObjectDeinit: (() -> Void)? = nil,
        needsValue: Bool = true
    ) throws(KVOError) -> (info: TypedKVOInfo<Object, Value>, value: Value?) {
        let info = TypedKVOInfo(
            object: object,
            reader: reader,
            options: options,
            box: box,
            onObjectDeinit: onObjectDeinit
        )
        info.owner = owner
        info.stringKeyPath = stringKeyPath
        prepare?(info)
        let value = try info.start(on: object, needsValue: needsValue)
        return (info, value)
    }

    /// Ends registrations: none of their callbacks starts after this returns.
    func unregister(_ infos: some Sequence<KVOInfo>) {
        for info in infos {
            info.cancel()
        }
    }
}
