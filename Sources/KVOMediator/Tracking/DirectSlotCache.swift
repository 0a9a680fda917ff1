/// Which `@Observed` property a key path is, per class: learnt from the first registration of a key
/// path on objects of a class (by tracking what evaluating it reads), then reused, so that later
/// registrations subscribe at once instead of evaluating the key path under tracking.
///
/// A key path is recorded only when evaluating it read exactly one slot, an `@Observed` property of
/// the root object, and that property reported the read through this same key path: the key path
/// then *is* that property, and on objects of that class it always names the same storage. Two more
/// conditions keep out what one evaluation cannot tell:
/// - the key path's root type is the object's class itself, so no subclass override (which may read
///   other state, sometimes) is involved;
/// - the class declares no key paths affecting it (``KeyValueObservable/keyPathsAffectingValue(for:)``),
///   whose reads may depend on the object's state.
///
/// A fixed table indexed by a hash of the pair, each place holding the last pair recorded there, so
/// a lookup is one probe with no hashing through `Hasher`, and the cache never grows: key paths
/// formed at run time, not literals, only replace one another. Beside it, a list of pinned entries
/// (`pin`, for tests), looked in only when the table misses: empty, it costs a miss one check.
final class DirectSlotCache: @unchecked Sendable {  // `entries` and `pinned` are guarded by `lock`
    static let shared = DirectSlotCache()

    private struct Entry {
        var keyPathID: ObjectIdentifier?
        var objectType: ObjectIdentifier?
        var field = 0
        /// Held, so that the key path's identity is not reused while it is cached.
        var keyPath: AnyKeyPath?
        /// How many `pin`s keep this entry (in `pinned` only).
        var pins = 0

        func matches(_ keyPathID: ObjectIdentifier, _ typeID: ObjectIdentifier) -> Bool {
            self.keyPathID == keyPathID && objectType == typeID
        }
    }

    private let lock = Lock()
    private let mask: Int
    @exclusivity(unchecked) private var entries: [Entry]
    @exclusivity(unchecked) private var pinned: [Entry] = []

    /// - Parameter capacity: How many places; rounded up to a power of two.
    init(capacity: Int = 1_024) {
        var places = 1
        while places < capacity { places *= 2 }
        mask = places - 1
        entries = Array(repeating: Entry(), count: places)
    }

    private func place(of keyPath: AnyKeyPath, on objectType: AnyObject.Type) -> Int {
        let pair = UInt(bitPattern: ObjectIdentifier(keyPath)) ^ (UInt(bitPattern: ObjectIdentifier(objectType)) >> 3)
        return tablePlace(of: pair, mask: mask)
    }

    /// Whether a key path that one evaluation found to be an `@Observed` property of `object` may be
    /// recorded (see above), given whether `object`'s class `declares` key paths affecting it (as its
    /// registration found when it was made: ``KVOInfo/rootDeclares``).
    static func isCacheable<Object: KeyValueObservable>(
        _ keyPath: AnyKeyPath,
        on object: Object,
        declares: Bool
    ) -> Bool {
        !declares && type(of: keyPath).rootType == type(of: object)
    }

    /// The storage offset of the `@Observed` property that `keyPath` is, on objects of `objectType`.
    func field(of keyPath: AnyKeyPath, on objectType: AnyObject.Type) -> Int? {
        let index = place(of: keyPath, on: objectType)
        let keyPathID = ObjectIdentifier(keyPath)
        let typeID = ObjectIdentifier(objectType)
        return lock.withLock {
            if entries[index].matches(keyPathID, typeID) { return entries[index].field }
            return pinned.isEmpty ? nil : pinned.first { $0.matches(keyPathID, typeID) }?.field
        }
    }

    func record(_ field: Int, of keyPath: AnyKeyPath, on objectType: AnyObject.Type) {
        let index = place(of: keyPath, on: objectType)
        let entry = Entry(
            keyPathID: ObjectIdentifier(keyPath),
            objectType: ObjectIdentifier(objectType),
            field: field,
            keyPath: keyPath
        )
        let replaced = lock.withLock {
            let replaced = entries[index].keyPath
            entries[index] = entry
            return replaced
        }
        _ = replaced  // released here, outside the lock
    }

    /// Keeps `field` for `keyPath` on `objectType` until as many `unpin`s, whatever is recorded meanwhile,
    /// so that every registration of the key path on that class finds it and reads nothing: for tests
    /// whose threads register a property while another thread sets it.
    func pin(_ field: Int, of keyPath: AnyKeyPath, on objectType: AnyObject.Type) {
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

extension TypedKVOInfo {
    /// The storage offset of the `@Observed` property that `reader`'s key path, a typed one, is known to
    /// be on `object`'s class (``DirectSlotCache``), if it is.
    static func knownField(of reader: Reader, on object: Object) -> Int? {
        guard case .typed(let typed) = reader else { return nil }
        return DirectSlotCache.shared.field(of: typed, on: type(of: object))
    }
}
