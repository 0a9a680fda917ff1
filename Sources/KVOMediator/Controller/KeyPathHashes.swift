/// Key paths' hash values, per key path object: hashing a key path walks its components (thousands
/// of instructions for a computed property), and literal key paths are one object per expression,
/// so a controller finding an object's key path among many hashes it once, not at each lookup.
final class KeyPathHashes: Sendable {
    static let shared = KeyPathHashes()

    private let table = KeyPathTable<Int>(capacity: 1_024)

    /// `keyPath.hashValue`, from the table when this key path object was hashed before.
    func hash(of keyPath: AnyKeyPath) -> Int {
        if let hash = table.payload(of: keyPath) { return hash }
        let hash = keyPath.hashValue
        table.update(keyPath) { $0 = hash }
        return hash
    }
}
