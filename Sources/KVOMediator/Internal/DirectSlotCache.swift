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
final class DirectSlotCache: @unchecked Sendable {  // `fields` is guarded by `lock`
    static let shared = DirectSlotCache()

    private struct Key: Hashable {
        let keyPath: ObjectIdentifier
        let objectType: ObjectIdentifier

        init(_ keyPath: AnyKeyPath, _ objectType: AnyObject.Type) {
            self.keyPath = ObjectIdentifier(keyPath)
            self.objectType = ObjectIdentifier(objectType)
        }
    }

    private struct Entry {
        /// Held, so that the key path's identity is not reused while it is cached.
        let keyPath: AnyKeyPath
        let field: Int
    }

    /// Past this many entries the cache starts again (key paths formed at run time, not literals,
    /// could otherwise fill it without bound).
    private let capacity: Int

    private let lock = Lock()
    @exclusivity(unchecked) private var fields: [Key: Entry] = [:]

    init(capacity: Int = 4_096) {
        self.capacity = capacity
    }

    /// Whether a key path that one evaluation found to be an `@Observed` property of `object` may be
    /// recorded (see above).
    static func isCacheable<Object: KeyValueObservable>(_ keyPath: AnyKeyPath, on object: Object) -> Bool {
        type(of: keyPath).rootType == type(of: object)
            && type(of: object).keyPathsAffectingValue(for: keyPath).isEmpty
    }

    /// The storage offset of the `@Observed` property that `keyPath` is, on objects of `objectType`.
    func field(of keyPath: AnyKeyPath, on objectType: AnyObject.Type) -> Int? {
        let key = Key(keyPath, objectType)
        return lock.withLock { fields[key]?.field }
    }

    func record(_ field: Int, of keyPath: AnyKeyPath, on objectType: AnyObject.Type) {
        let key = Key(keyPath, objectType)
        let evicted: [Key: Entry] = lock.withLock {
            var evicted: [Key: Entry] = [:]
            if fields.count >= capacity { swap(&evicted, &fields) }
            fields[key] = Entry(keyPath: keyPath, field: field)
            return evicted
        }
        _ = evicted  // released here, outside the lock
    }

    /// How many key paths are cached (for tests).
    var count: Int {
        lock.withLock { fields.count }
    }
}
