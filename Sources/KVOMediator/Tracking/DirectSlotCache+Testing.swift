/// What tests ask of ``DirectSlotCache``, and the pins the threaded model test keeps its slots with.
extension DirectSlotCache {
    /// Keeps `field` for `keyPath` on `objectType` until as many `unpin`s, whatever is recorded meanwhile,
    /// so that every registration of the key path on that class finds it and reads nothing: for tests
    /// whose threads register a property while another thread sets it. Pins nothing with caches off.
    func pin(_ field: Int, of keyPath: AnyKeyPath, on objectType: AnyObject.Type) {
        guard isOn else { return }
        let keyPathID = ObjectIdentifier(keyPath)
        let typeID = ObjectIdentifier(objectType)
        entries.withLock { entries in
            if let index = entries.pinned.firstIndex(where: { $0.matches(keyPathID, typeID) }) {
                entries.pinned[index].field = field
                entries.pinned[index].pins += 1
            } else {
                let entry = Entry(keyPathID: keyPathID, objectType: typeID, field: field, keyPath: keyPath, pins: 1)
                entries.pinned.append(entry)
            }
        }
    }

    /// Ends one `pin` of `keyPath` on `objectType` (nothing if it is not pinned).
    func unpin(_ keyPath: AnyKeyPath, on objectType: AnyObject.Type) {
        let keyPathID = ObjectIdentifier(keyPath)
        let typeID = ObjectIdentifier(objectType)
        let unpinned: Entry? = entries.withLock { entries in
            guard let index = entries.pinned.firstIndex(where: { $0.matches(keyPathID, typeID) }) else { return nil }
            entries.pinned[index].pins -= 1
            return entries.pinned[index].pins == 0 ? entries.pinned.remove(at: index) : nil
        }
        _ = unpinned  // its key path released here, outside the lock
    }

    /// The field cached for a key path equal to `keyPath` on `objectType`, whatever its identity (for
    /// tests: a registration's key path object need not be the one a test writes for the same literal;
    /// see `_KeyPathReading`).
    func field(ofEqual keyPath: AnyKeyPath, on objectType: AnyObject.Type) -> Int? {
        let typeID = ObjectIdentifier(objectType)
        return entries.withLock { entries in
            entries.table.first { $0.objectType == typeID && $0.keyPath == keyPath }?.field
        }
    }

    /// How many key paths are cached (for tests).
    var count: Int {
        entries.withLock { entries in entries.table.reduce(0) { $0 + ($1.keyPathID == nil ? 0 : 1) } }
    }
}
