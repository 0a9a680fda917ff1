/// Key paths' hash values, per key path object: hashing a key path walks its components (thousands
/// of instructions for a computed property), and literal key paths are one object per expression,
/// so a controller finding an object's key path among many hashes it once, not at each lookup.
///
/// A fixed table indexed by the key path's address, each place holding the last key path hashed
/// there (held, so that its identity is not reused while cached): no allocation, no growth.
final class KeyPathHashes: @unchecked Sendable {  // `entries` is guarded by `lock`
    static let shared = KeyPathHashes()

    private struct Entry {
        var keyPath: AnyKeyPath?
        var hash = 0
    }

    private let lock = Lock()
    private let mask = 1_023
    @exclusivity(unchecked) private var entries = Array(repeating: Entry(), count: 1_024)

    /// `keyPath.hashValue`, from the table when this key path object was hashed before.
    func hash(of keyPath: AnyKeyPath) -> Int {
        let index =
            Int(truncatingIfNeeded: (UInt(bitPattern: ObjectIdentifier(keyPath)) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
        if let hash = lock.withLock({ entries[index].keyPath === keyPath ? entries[index].hash : nil }) {
            return hash
        }
        let hash = keyPath.hashValue
        let replaced = lock.withLock {
            let replaced = entries[index].keyPath
            entries[index] = Entry(keyPath: keyPath, hash: hash)
            return replaced
        }
        _ = replaced  // released here, outside the lock
        return hash
    }
}
