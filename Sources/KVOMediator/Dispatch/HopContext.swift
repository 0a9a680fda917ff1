/// What a hopping delivery needs: its registration, held weakly, to pass the gate again where it runs.
///
/// (Held through a pin, not `weak`: a `weak` reference gives the registration a side table, which sends
/// each retain and release of it, on every path, to the runtime's slow path.)
@usableFromInline
final class HopContext: @unchecked Sendable {  // `registration` is guarded by `lock`
    private let lock = Lock()
    private var registration: WeakReference<KVOInfo>?

    @usableFromInline
    init() {}

    @usableFromInline
    var info: KVOInfo? {
        lock.withLock { registration }?.object
    }

    /// Called once, before the registration starts.
    @usableFromInline
    func attach(_ info: KVOInfo) {
        let reference = WeakReference(info)
        lock.withLock { registration = reference }
    }
}
