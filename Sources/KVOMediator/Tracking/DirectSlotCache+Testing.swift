/// What tests ask of ``DirectSlotCache``, and the pins the threaded model test keeps its slots with.
extension DirectSlotCache {
    /// Keeps `field` for `keyPath` on `objectType` until as many `unpin`s, whatever is recorded meanwhile,
    /// so that every registration of the key path on that class finds it and reads nothing: for tests
    /// whose threads register a property while another thread sets it. Pins nothing with caches off.
    func pin(_ field: Int, of keyPath: AnyKeyPath, on objectType: AnyObject.Type) {
        guard isOn else { return }
        let keyPathID = ObjectIdentifier(keyPath)
        let typeID = ObjectIdentifier(objectType)
        lock.withLock {
            if let index = pinned.firstIndex(where: { $0.matches(keyPathID, typeID) }) {
                pinned[index].field = field
                pinned[index].pins += 1
            } else {
                pinned.append(Entry(keyPathID: keyPathID, objectType: typeID, field: field, keyPath: keyPath, pins: 1))
            }
        }
    }

    /// Ends one `pin` of `keyPath` on `objectType` (nothing if it is not pinned).
    func unpin(_ keyPath: AnyKeyPath, on objectType: AnyObject.Type) {
        let keyPathID = ObjectIdentifier(keyPath)
        let typeID = ObjectIdentifier(objectType)
        let unpinned: Entry? = lock.withLock {
            guard let index = pinned.firstIndex(where: { $0.matches(keyPathID, typeID) }) else { return nil }
            pinned[index].pins -= 1
            return pinned[index].pins == 0 ? pinned.remove(at: index) : nil
        }
        _ = unpinned  // its key path released here, outside the lock
    }

    /// The field cached for a key path equal to `keyPath` on `objectType`, whatever its identity (for
    /// tests: a registration's key path object need not be the one a test writes for the same literal;
    /// see `_KeyPathReading`).
    func field(ofEqual keyPath: AnyKeyPath, on objectType: AnyObject.Type) -> Int? {
        let typeID = ObjectIdentifier(objectType)
        return lock.withLock {
            entries.first { $0.objectType == typeID && $0.keyPath == keyPath }?.field
        }
    }

    /// How many key paths are cached (for tests).
    var count: Int {
        lock.withLock { entries.reduce(0) { $0 + ($1.keyPathID == nil ? 0 : 1) } }
    }
}
