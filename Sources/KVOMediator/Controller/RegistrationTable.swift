/// A controller's registrations, by the identity of the object each observes.
///
/// An open-addressing hash table of (object, registration) pairs, several per object, probed
/// linearly: one 16-byte bucket per registration and no allocation per object or per registration,
/// where a dictionary of per-object lists costs a bucket per object plus a list. It grows past 4/5
/// full and shrinks below 1/8; removal shifts later buckets back, so no bucket is ever a tombstone and
/// a probe ends at the first empty bucket.
struct RegistrationTable {
    private struct Bucket {
        /// The object's address; 0 in an empty bucket.
        var key: UInt
        var info: KVOInfo?

        static let empty = Bucket(key: 0, info: nil)
    }

    /// Empty, or a power of two long.
    private var buckets: [Bucket] = []
    /// How many buckets are used: the number of registrations.
    private(set) var count = 0

    private static let minimumCapacity = 4

    init() {}

    private var mask: Int { buckets.count &- 1 }

    /// Where a probe for `key` starts: the high bits of a multiplicative hash (object addresses
    /// differ mostly in their middle bits).
    private func home(of key: UInt) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    private static func key(_ id: ObjectIdentifier) -> UInt {
        UInt(bitPattern: id)
    }

    // MARK: Reading

    /// Calls `body` with each registration on the object, until it returns false.
    private func forEach(of id: ObjectIdentifier, _ body: (Int, KVOInfo) -> Bool) {
        guard count > 0 else { return }
        let key = Self.key(id)
        var index = home(of: key)
        while buckets[index].key != 0 {
            if buckets[index].key == key, !body(index, buckets[index].info.unsafelyUnwrapped) { return }
            index = (index &+ 1) & mask
        }
    }

    /// The registrations on the object.
    func infos(of id: ObjectIdentifier) -> InlineList<KVOInfo> {
        var result = InlineList<KVOInfo>()
        forEach(of: id) { _, info in
            result.append(info)
            return true
        }
        return result
    }

    /// Whether a registration on the object matches.
    func contains(_ id: ObjectIdentifier, where matches: (KVOInfo) -> Bool = { _ in true }) -> Bool {
        var found = false
        forEach(of: id) { _, info in
            found = matches(info)
            return !found
        }
        return found
    }

    /// The used buckets, each run of buckets from its start: so an object's registrations come in
    /// the order they were added. (A run never spans an empty bucket, and the table is never full.)
    private func forEachUsedBucket(_ body: (Bucket) -> Void) {
        guard let empty = buckets.firstIndex(where: { $0.key == 0 }) else { return }
        for offset in 1...buckets.count {
            let bucket = buckets[(empty &+ offset) & mask]
            if bucket.key != 0 { body(bucket) }
        }
    }

    /// Every registration, grouped by object, groups in no particular order, each in the order added.
    func grouped() -> [(id: ObjectIdentifier, infos: [KVOInfo])] {
        var groups: [UInt: [KVOInfo]] = [:]
        forEachUsedBucket { bucket in
            groups[bucket.key, default: []].append(bucket.info.unsafelyUnwrapped)
        }
        return groups.map { (id: unsafeBitCast($0.key, to: ObjectIdentifier.self), infos: $0.value) }
    }

    // MARK: Changing

    mutating func insert(_ info: KVOInfo, for id: ObjectIdentifier) {
        if (count &+ 1) &* 5 > buckets.count &* 4 {
            resize(to: Swift.max(Self.minimumCapacity, buckets.count &* 2))
        }
        place(Bucket(key: Self.key(id), info: info))
        count &+= 1
    }

    /// Puts a bucket in the first empty place from its home (there is one: the table is never full).
    private mutating func place(_ bucket: Bucket) {
        var index = home(of: bucket.key)
        while buckets[index].key != 0 { index = (index &+ 1) & mask }
        buckets[index] = bucket
    }

    /// Removes the registrations on the object that match, and returns them.
    mutating func removeAll(of id: ObjectIdentifier, where matches: (KVOInfo) -> Bool) -> InlineList<KVOInfo> {
        var removed = InlineList<KVOInfo>()
        while true {
            var found: Int?
            forEach(of: id) { index, info in
                if matches(info) { found = index }
                return found == nil
            }
            guard let index = found else { break }
            removed.append(buckets[index].info.unsafelyUnwrapped)
            remove(at: index)
        }
        shrinkIfSparse()
        return removed
    }

    /// Removes `info` (by identity) from the object's registrations; true if it was there.
    @discardableResult
    mutating func remove(_ info: KVOInfo, of id: ObjectIdentifier) -> Bool {
        removeAll(of: id) { $0 === info }.isEmpty == false
    }

    /// Removes and returns every registration.
    mutating func removeAll() -> [KVOInfo] {
        var all: [KVOInfo] = []
        all.reserveCapacity(count)
        for bucket in buckets where bucket.key != 0 {
            all.append(bucket.info.unsafelyUnwrapped)
        }
        buckets = []
        count = 0
        return all
    }

    /// Empties the bucket at `index`, then moves back each later bucket of the run that its probe
    /// would no longer reach.
    private mutating func remove(at index: Int) {
        var hole = index
        var next = index
        while true {
            next = (next &+ 1) & mask
            let key = buckets[next].key
            if key == 0 { break }
            let home = home(of: key)
            // The bucket at `next` may fill the hole unless its home lies cyclically in (hole, next].
            let reachable = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if reachable { continue }
            buckets[hole] = buckets[next]
            hole = next
        }
        buckets[hole] = .empty
        count &-= 1
    }

    private mutating func shrinkIfSparse() {
        if buckets.count > 64, count &* 8 < buckets.count {
            resize(to: buckets.count / 2)
        }
    }

    private mutating func resize(to capacity: Int) {
        let old = self
        buckets = Array(repeating: .empty, count: capacity)
        old.forEachUsedBucket { place($0) }
    }
}
