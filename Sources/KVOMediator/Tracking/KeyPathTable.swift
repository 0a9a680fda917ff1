/// Something known about key path objects, kept per key path object: a fixed table indexed by the key
/// path's address, each place holding the last key path recorded there (held, so that its identity is
/// not reused while cached) with what is known of it. No allocation, no growth: key paths formed at
/// run time, not literals, only replace one another. What ``ChainShapeCache`` and ``KeyPathHashes``
/// keep. With caches off (``CacheSwitch``) it keeps nothing: every lookup misses.
final class KeyPathTable<Payload>: Sendable {
    private struct Entry {
        var keyPath: AnyKeyPath?
        var payload: Payload?
    }

    private let mask: Int
    private let isOn: Bool
    private let entries: LockProtected<[Entry]>

    /// - Parameters:
    ///   - capacity: How many places, a power of two.
    ///   - isOn: Whether it keeps anything (``CacheSwitch``, unless a test says).
    init(capacity: Int, isOn: Bool = CacheSwitch.cachesAreOn) {
        precondition(capacity > 0 && capacity & (capacity - 1) == 0, "KeyPathTable: capacity must be a power of two")
        mask = capacity - 1
        self.isOn = isOn
        entries = LockProtected(Array(repeating: Entry(), count: capacity))
    }

    private func place(of keyPath: AnyKeyPath) -> Int {
        tablePlace(of: UInt(bitPattern: ObjectIdentifier(keyPath)), mask: mask)
    }

    /// What is known of `keyPath`, unless its place holds another key path (or none).
    func payload(of keyPath: AnyKeyPath) -> Payload? {
        guard isOn else { return nil }
        let index = place(of: keyPath)
        return entries.withLock { $0[index].keyPath === keyPath ? $0[index].payload : nil }
    }

    /// Updates what is known of `keyPath`: `body` is given it (nil when its place held another key
    /// path, which it then replaces), under the lock. With caches off, `body` is given nil and what it
    /// makes is not kept.
    func update(_ keyPath: AnyKeyPath, _ body: (inout Payload?) -> Void) {
        guard isOn else {
            var payload: Payload?
            body(&payload)
            return
        }
        let index = place(of: keyPath)
        let replaced: AnyKeyPath? = entries.withLock { entries in
            var entry = entries[index]
            let replaced = entry.keyPath === keyPath ? nil : entry.keyPath
            if replaced != nil || entry.keyPath == nil { entry = Entry(keyPath: keyPath) }
            body(&entry.payload)
            entries[index] = entry
            return replaced
        }
        _ = replaced  // released here, outside the lock
    }
}
