/// Key paths' hash values and equality, per key path object: hashing or comparing two key paths walks
/// their components (hundreds of instructions, thousands for a computed property), and literal key
/// paths are one object per expression, so a controller finding an object's key path among many does
/// that walk once per key path object, not at each lookup.
///
/// Equal key paths written in different places are different objects (which object a literal
/// becomes is the compiler's choice). Each key path object seen is given a *canonical* one: the first
/// equal key path seen with its hash, so that an `unobserve` that writes its own literal compares by
/// identity with what `observe` was given. Both tables are accelerators only: a key path whose entry
/// was replaced, or any key path with caches off, is its own canonical object and is compared by `==`.
final class KeyPathHashes: Sendable {
    static let shared = KeyPathHashes()

    /// What is known of one key path object.
    struct Identity {
        /// `keyPath.hashValue`.
        let hash: Int
        /// The key path object that stands for every key path equal to this one (see above).
        let canonical: AnyKeyPath
    }

    private let known = KeyPathTable<Identity>(capacity: 1_024)
    /// By hash value: the canonical key path object of the key paths with that hash.
    private let canonicals: LockProtected<[AnyKeyPath?]>
    private let canonicalMask = 1_023
    private let isOn: Bool

    init(isOn: Bool = CacheSwitch.cachesAreOn) {
        self.isOn = isOn
        canonicals = LockProtected(Array(repeating: nil, count: canonicalMask + 1))
    }

    /// `keyPath.hashValue`, from the table when this key path object was hashed before.
    func hash(of keyPath: AnyKeyPath) -> Int {
        identity(of: keyPath).hash
    }

    /// The hash and the canonical object of `keyPath`.
    func identity(of keyPath: AnyKeyPath) -> Identity {
        if let identity = known.payload(of: keyPath) { return identity }
        let hash = keyPath.hashValue
        guard isOn else { return Identity(hash: hash, canonical: keyPath) }
        let place = tablePlace(of: UInt(bitPattern: hash), mask: canonicalMask)
        // (`==` of key paths runs no user code, so it may run under the lock.)
        let canonical = canonicals.withLock { canonicals in
            if let canonical = canonicals[place], canonical == keyPath { return canonical }
            canonicals[place] = keyPath
            return keyPath
        }
        let identity = Identity(hash: hash, canonical: canonical)
        known.update(keyPath) { $0 = identity }
        return identity
    }

    /// Whether `lhs` and `rhs` are equal key paths: at once for the same object, for two objects known
    /// to stand for one key path, or for different hashes; otherwise by `==`.
    func areEqual(_ lhs: AnyKeyPath, _ rhs: AnyKeyPath) -> Bool {
        if lhs === rhs { return true }
        return Self.areEqual(lhs, identity(of: lhs), rhs, identity(of: rhs))
    }

    /// Whether `lhs` and `rhs`, whose identities are `left` and `right`, are equal key paths: not for
    /// different hashes; at once for one canonical object; otherwise by `==`.
    static func areEqual(_ lhs: AnyKeyPath, _ left: Identity, _ rhs: AnyKeyPath, _ right: Identity) -> Bool {
        left.hash == right.hash && (left.canonical === right.canonical || sameKeyPath(lhs, rhs))
    }
}
