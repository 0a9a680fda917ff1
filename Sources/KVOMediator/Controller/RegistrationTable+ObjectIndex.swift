/// The per-object index a controller's table keeps for an object with many registrations.
extension RegistrationTable {
    /// A key path as a dictionary key: hashed once per key path object (``KeyPathHashes``), since
    /// hashing a key path walks its components, and compared by identity first.
    struct KeyPathKey: Hashable {
        let keyPath: AnyKeyPath
        let identity: KeyPathHashes.Identity

        init(_ keyPath: AnyKeyPath) {
            self.keyPath = keyPath
            self.identity = KeyPathHashes.shared.identity(of: keyPath)
        }

        static func == (lhs: KeyPathKey, rhs: KeyPathKey) -> Bool {
            KeyPathHashes.areEqual(lhs.keyPath, lhs.identity, rhs.keyPath, rhs.identity)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(identity.hash)
        }
    }

    /// One object's registrations, by key path (several may share one: the table does not dedupe).
    final class ObjectIndex {
        var byKeyPath: [KeyPathKey: InlineList<KVOInfo>] = [:]
        var count = 0
        /// How many were made with a string key path.
        var stringForms = 0

        func insert(_ info: KVOInfo) {
            byKeyPath[KeyPathKey(info.keyPath), default: InlineList()].append(info)
            count &+= 1
            if info.stringKeyPath != nil { stringForms &+= 1 }
        }

        /// Removes `info` (by identity); true if it was there.
        func remove(_ info: KVOInfo) -> Bool {
            let key = KeyPathKey(info.keyPath)
            guard var list = byKeyPath[key], let position = list.lastIndex(where: { $0 === info }) else {
                return false
            }
            list.remove(at: position)
            byKeyPath[key] = list.isEmpty ? nil : list
            count &-= 1
            if info.stringKeyPath != nil { stringForms &-= 1 }
            return true
        }

        func forEachInfo(_ body: (KVOInfo) -> Void) {
            for list in byKeyPath.values { list.forEachElement(body) }
        }
    }
}
