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
/// (`DirectSlotCache+Testing`), looked in only when the table misses: empty, it costs a miss one check.
/// With caches off (``CacheSwitch``) nothing is recorded and every lookup misses: a registration then
/// evaluates its key path, which subscribes it to the same property.
final class DirectSlotCache: Sendable {
    static let shared = DirectSlotCache()

    struct Entry {
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

    /// The table, and the pinned entries beside it (`DirectSlotCache+Testing`).
    struct Entries {
        var table: [Entry]
        var pinned: [Entry] = []
    }

    private let mask: Int
    let isOn: Bool
    let entries: LockProtected<Entries>

    /// - Parameters:
    ///   - capacity: How many places; rounded up to a power of two.
    ///   - isOn: Whether it keeps anything (``CacheSwitch``, unless a test says).
    init(capacity: Int = 1_024, isOn: Bool = CacheSwitch.cachesAreOn) {
        self.isOn = isOn
        var places = 1
        while places < capacity { places *= 2 }
        mask = places - 1
        entries = LockProtected(Entries(table: Array(repeating: Entry(), count: places)))
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
        guard isOn else { return nil }
        let index = place(of: keyPath, on: objectType)
        let keyPathID = ObjectIdentifier(keyPath)
        let typeID = ObjectIdentifier(objectType)
        return entries.withLock { entries in
            if entries.table[index].matches(keyPathID, typeID) { return entries.table[index].field }
            return entries.pinned.isEmpty ? nil : entries.pinned.first { $0.matches(keyPathID, typeID) }?.field
        }
    }

    func record(_ field: Int, of keyPath: AnyKeyPath, on objectType: AnyObject.Type) {
        guard isOn else { return }
        let index = place(of: keyPath, on: objectType)
        let entry = Entry(
            keyPathID: ObjectIdentifier(keyPath),
            objectType: ObjectIdentifier(objectType),
            field: field,
            keyPath: keyPath
        )
        let replaced = entries.withLock { entries in
            let replaced = entries.table[index].keyPath
            entries.table[index] = entry
            return replaced
        }
        _ = replaced  // released here, outside the lock
    }
}
