/// What an `@Observed` getter, a read by name and `accessValue(for:)` report their reads to: the
/// recorder installed on this thread while a key path is evaluated (``ThreadContext``). A tracker (the
/// layer above, which subscribes a registration as each read happens) is one; a probe, which only
/// lists the reads, is another. The getters call it through this class, so that the observable side
/// names no tracking type: each method is one call through the class's table.
class ReadRecorder {
    /// A read of the `@Observed` property whose storage is at `field` of `object` (its registrar is
    /// `registrar`), which `wrapped` gives the key path of: called only while the key path is needed.
    func readField<Object: KeyValueObservable>(
        _ field: Int,
        of object: Object,
        on registrar: KVORegistrar,
        wrapped: () -> AnyKeyPath
    ) {
        preconditionFailure("KVOMediator: every recorder records reads of fields")
    }

    /// A read of a property with custom storage, named by `keyPath` (``KeyValueObservable/accessValue(for:)``).
    func readCustomStorage<Object: KeyValueObservable>(
        _ keyPath: AnyKeyPath,
        of object: Object,
        on registrar: KVORegistrar
    ) {
        preconditionFailure("KVOMediator: every recorder records reads of custom storage")
    }

    /// A read of the `@Observed` property at `field` of `object`, made by name (string key paths).
    func readField(_ field: Int, named object: AnyObject, on registrar: KVORegistrar) {
        preconditionFailure("KVOMediator: every recorder records reads by name")
    }

    /// A read of a link that may be weak (an `@ObservedWeak` property, custom storage).
    func noteWeakLinkRead() {}

    /// Evaluates `body` with this recorder installed on the current thread, restoring the previous one
    /// after.
    final func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        SwiftRuntime.addTrackers(1)
        defer { SwiftRuntime.addTrackers(-1) }
        return try ThreadContext.withTracker(self, body)
    }

    /// Tells this thread's recorder, if any, of a read of a link that may be weak.
    static func noteWeakLinkRead() {
        ThreadContext.withCurrentTracker(as: ReadRecorder.self) { $0.noteWeakLinkRead() }
    }
}

/// Lists the observable reads that evaluating a key path makes, subscribing nothing: what a manual
/// change announces to, and what names a chain.
final class ReadProbe: ReadRecorder {
    private var accesses: [Access] = []

    /// The observable reads that evaluating `keyPath` on `object` makes, each once, in order.
    static func reads<Root>(of keyPath: PartialKeyPath<Root>, on object: Root) -> [Access] {
        let probe = ReadProbe()
        _ = probe.run { object[keyPath: keyPath] }
        return probe.accesses
    }

    override func readField<Object: KeyValueObservable>(
        _ field: Int,
        of object: Object,
        on registrar: KVORegistrar,
        wrapped: () -> AnyKeyPath
    ) {
        registrar.verifyStored(in: object)
        record(Access(registrar: registrar, slot: .field(field), wrapped: wrapped(), objectType: type(of: object)))
    }

    override func readCustomStorage<Object: KeyValueObservable>(
        _ keyPath: AnyKeyPath,
        of object: Object,
        on registrar: KVORegistrar
    ) {
        registrar.verifyStored(in: object)
        record(Access(registrar: registrar, slot: .keyPath(keyPath), objectType: type(of: object)))
    }

    override func readField(_ field: Int, named object: AnyObject, on registrar: KVORegistrar) {
        registrar.verifyStored(in: object)
        record(Access(registrar: registrar, slot: .field(field), objectType: type(of: object)))
    }

    private func record(_ access: Access) {
        if accesses.contains(registrar: ObjectIdentifier(access.registrar), slot: access.slot) { return }
        accesses.append(access)
    }
}
