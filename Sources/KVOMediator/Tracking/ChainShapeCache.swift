/// Whether a typed key path is a chain of `@Observed` properties when it reads certain properties (a
/// shape: a hash of the identities of the key paths that read them, which a subclass's override
/// reading other storage changes), per key path object: learnt by the first registration that evaluates it (from the types of its links,
/// checked against the value read: see `KVOInfo.leafKey(of:valueIsLeafs:)`), then reused, so that
/// later registrations of the same literal do not work it out again.
///
/// A fixed table indexed by a hash of the key path's identity, each place holding the last key path
/// recorded there (held, so that its identity is not reused while cached): no allocation, no growth.
final class ChainShapeCache: @unchecked Sendable {  // `entries` is guarded by `lock`
    static let shared = ChainShapeCache()

    private struct Entry {
        var keyPath: AnyKeyPath?
        var shape: UInt = 0
        var isChain = false
        /// The property a chain evaluation of the key path read last (its wrapped key path's identity):
        /// a chain's last component is one property, so once two differ (an override in a subclass
        /// reads other storage for it) the key path is never taken for a chain again.
        var leafProperty: ObjectIdentifier?
        var conflicted = false
    }

    private let lock = Lock()
    private let mask = 255
    @exclusivity(unchecked) private var entries = Array(repeating: Entry(), count: 256)

    private func place(of keyPath: AnyKeyPath) -> Int {
        Int(truncatingIfNeeded: (UInt(bitPattern: ObjectIdentifier(keyPath)) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// The shape of a sequence of reads (see above).
    static func shape(of accesses: [Access]) -> UInt {
        accesses.reduce(UInt(accesses.count)) { shape, access in
            let id = access.wrapped.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? 0
            return (shape ^ id) &* 0x9E37_79B9_7F4A_7C15
        }
    }

    /// Whether `keyPath` is a chain when its reads have `shape` and end at `leafProperty`, if known.
    func isChain(_ keyPath: AnyKeyPath, shape: UInt, leafProperty: ObjectIdentifier?) -> Bool? {
        let index = place(of: keyPath)
        return lock.withLock {
            let entry = entries[index]
            guard entry.keyPath === keyPath else { return nil }
            if entry.conflicted || (entry.leafProperty != nil && entry.leafProperty != leafProperty) { return false }
            return entry.shape == shape ? entry.isChain : nil
        }
    }

    /// Records what an evaluation found; a chain ending at another property than an earlier chain
    /// evaluation's makes the key path no chain for good (while it stays cached).
    func record(_ isChain: Bool, of keyPath: AnyKeyPath, shape: UInt, leafProperty: ObjectIdentifier?) {
        let index = place(of: keyPath)
        let replaced: AnyKeyPath? = lock.withLock {
            var entry = entries[index]
            let replaced = entry.keyPath === keyPath ? nil : entry.keyPath
            if entry.keyPath !== keyPath { entry = Entry(keyPath: keyPath) }
            entry.shape = shape
            entry.isChain = isChain && !entry.conflicted
            if isChain {
                if let known = entry.leafProperty, known != leafProperty {
                    entry.conflicted = true
                    entry.isChain = false
                } else {
                    entry.leafProperty = leafProperty
                }
            }
            entries[index] = entry
            return replaced
        }
        _ = replaced  // released here, outside the lock
    }
}
