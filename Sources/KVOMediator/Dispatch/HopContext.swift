/// What a hopping delivery needs: its registration, held weakly, to pass the gate again where it runs.
final class HopContext: @unchecked Sendable {  // `registration` is guarded by `lock`
    private let lock = Lock()
    private weak var registration: KVOInfo?

    var info: KVOInfo? {
        lock.withLock { registration }
    }

    func attach(_ info: KVOInfo) {
        lock.withLock { registration = info }
    }
}
