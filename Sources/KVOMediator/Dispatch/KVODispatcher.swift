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
            onObjectDeinit: onObjectDeinit
        )
        info.stringKeyPath = stringKeyPath
        prepare?(info)
        return info
    }

    /// Ends registrations: none of their callbacks starts after this returns.
    func unregister(_ infos: some Sequence<KVOInfo>) {
        for info in infos {
            info.cancel()
        }
    }

    /// Ends registrations: none of their callbacks starts after this returns.
    func unregister(_ infos: InlineList<KVOInfo>) {
        infos.forEachElement { $0.cancel() }
    }
}
