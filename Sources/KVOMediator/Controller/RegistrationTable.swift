/// A controller's registrations, by the identity of the object each observes.
///
/// An open-addressing hash table of (object, registration) pairs, several per object, probed
/// linearly: one 16-byte bucket per registration and no allocation per object or per registration,
/// where a dictionary of per-object lists costs a bucket per object plus a list. It grows past 4/5
/// full and shrinks below 1/8; removal shifts later buckets back, so no bucket is ever a tombstone and
/// a probe ends at the first empty bucket.
///
/// An object with more than `indexThreshold` registrations has one bucket instead, holding an
/// ``ObjectIndex`` of them by key path: finding, adding or removing one of its key paths then costs
/// the same with ten or ten thousand (FBKVOController's per-object set), not a walk over them all.
struct RegistrationTable {
    struct Bucket {
        /// The object's address, with `indexTag` set when `item` is an ``ObjectIndex``; 0 in an empty bucket.
        var key: UInt
        /// A ``KVOInfo``, or an ``ObjectIndex`` (see `key`).
        var item: AnyObject?

        static var empty: Bucket { Bucket(key: 0, item: nil) }

        var isIndex: Bool { key & RegistrationTable.indexTag != 0 }
        var objectKey: UInt { key & ~RegistrationTable.indexTag }
        var info: KVOInfo { KnownClass.cast(item.unsafelyUnwrapped, to: KVOInfo.self) }
        var index: ObjectIndex { KnownClass.cast(item.unsafelyUnwrapped, to: ObjectIndex.self) }
    }

    /// Object addresses are aligned, so their low bit is free to tag a bucket holding an ``ObjectIndex``.
    fileprivate static let indexTag: UInt = 1
    /// How many registrations of one object its buckets hold before they move into an ``ObjectIndex``.
    static let indexThreshold = 8

    /// Empty, or a power of two long.
    private(set) var buckets: [Bucket] = []
    /// How many buckets are used: the number of registrations.
    private(set) var count = 0

    private static let minimumCapacity = 4

    init() {}

    var mask: Int { buckets.count &- 1 }

    /// Where a probe for `key` starts: the high bits of a multiplicative hash (object addresses
    /// differ mostly in their middle bits).
    private func home(of key: UInt) -> Int {
        tablePlace(of: key, mask: mask)
    }

    private static func key(_ id: ObjectIdentifier) -> UInt {
        UInt(bitPattern: id)
    }

    // MARK: Reading

    /// The object's index, if its registrations are in one.
    private func objectIndex(of id: ObjectIdentifier) -> ObjectIndex? {
        guard count > 0 else { return nil }
        let tagged = Self.key(id) | Self.indexTag
        var index = home(of: Self.key(id))
        while buckets[index].key != 0 {
            if buckets[index].key == tagged { return buckets[index].index }
            index = (index &+ 1) & mask
        }
        return nil
    }

    /// Calls `body` with each registration on the object held in a bucket of its own (not in an
    /// index), with its bucket's position, until it returns false.
    private func forEachInBuckets(of id: ObjectIdentifier, _ body: (Int, KVOInfo) -> Bool) {
        guard count > 0 else { return }
        let key = Self.key(id)
        var index = home(of: key)
        while buckets[index].key != 0 {
            if buckets[index].key == key, !body(index, buckets[index].info) { return }
            index = (index &+ 1) & mask
        }
    }

    /// Calls `body` with each registration on the object, until it returns false.
    private func forEach(of id: ObjectIdentifier, _ body: (KVOInfo) -> Bool) {
        if let objectIndex = objectIndex(of: id) {
            for list in objectIndex.byKeyPath.values {
                for info in list where !body(info) { return }
            }
            return
        }
        forEachInBuckets(of: id) { body($1) }
    }

    /// The registrations on the object.
    func infos(of id: ObjectIdentifier) -> InlineList<KVOInfo> {
        var result = InlineList<KVOInfo>()
        forEach(of: id) { info in
            result.append(info)
            return true
        }
        return result
    }

    /// Whether a registration on the object matches.
    func contains(_ id: ObjectIdentifier, where matches: (KVOInfo) -> Bool = { _ in true }) -> Bool {
        var found = false
        forEach(of: id) { info in
            found = matches(info)
            return !found
        }
        return found
    }

    /// The registration on the object with a key path equal to `keyPath`, if there is one.
    func registration(_ id: ObjectIdentifier, keyPath: AnyKeyPath) -> KVOInfo? {
        if let objectIndex = objectIndex(of: id) {
            var found: KVOInfo?
            objectIndex.byKeyPath[KeyPathKey(keyPath)]?.forEachElement { info in if found == nil { found = info } }
            return found
        }
        var found: KVOInfo?
        forEach(of: id) { info in
            if KeyPathHashes.shared.areEqual(info.keyPath, keyPath) { found = info }
            return found == nil
        }
        return found
    }

    /// Whether a registration on the object was made in the other form (string or typed) than `isString`.
    func containsOtherForm(_ id: ObjectIdentifier, isString: Bool) -> Bool {
        if let objectIndex = objectIndex(of: id) {
            return isString ? objectIndex.count > objectIndex.stringForms : objectIndex.stringForms > 0
        }
        return contains(id) { ($0.stringKeyPath != nil) != isString }
    }

    // MARK: Changing

    mutating func insert(_ info: KVOInfo, for id: ObjectIdentifier) {
        if let objectIndex = objectIndex(of: id) {
            objectIndex.insert(info)
            count &+= 1
            return
        }
        var inBuckets = 0
        forEachInBuckets(of: id) { _, _ in
            inBuckets &+= 1
            return true
        }
        if inBuckets >= Self.indexThreshold {
            // Into an index: the object's buckets go, one tagged bucket takes their place.
            let objectIndex = ObjectIndex()
            for moved in removeAllFromBuckets(of: id, where: { _ in true }) { objectIndex.insert(moved) }
            objectIndex.insert(info)
            count &+= 1
            placeNew(Bucket(key: Self.key(id) | Self.indexTag, item: objectIndex))
            return
        }
        placeNew(Bucket(key: Self.key(id), item: info))
        count &+= 1
    }

    /// Adds a bucket, growing the table first if it is to be more than 4/5 full. (Buckets, not
    /// registrations, fill it; `count` counts registrations, so it is the bound used.)
    private mutating func placeNew(_ bucket: Bucket) {
        if (count &+ 1) &* 5 > buckets.count &* 4 {
            resize(to: Swift.max(Self.minimumCapacity, buckets.count &* 2))
        }
        place(bucket)
    }

    /// Puts a bucket in the first empty place from its home (there is one: the table is never full).
    private mutating func place(_ bucket: Bucket) {
        var index = home(of: bucket.objectKey)
        while buckets[index].key != 0 { index = (index &+ 1) & mask }
        buckets[index] = bucket
    }

    /// Removes the registrations on the object that match, and returns them.
    mutating func removeAll(of id: ObjectIdentifier, where matches: (KVOInfo) -> Bool) -> InlineList<KVOInfo> {
        if let objectIndex = objectIndex(of: id) {
            var removed = InlineList<KVOInfo>()
            objectIndex.forEachInfo { if matches($0) { removed.append($0) } }
            removed.forEachElement { _ = objectIndex.remove($0) }
            count &-= removed.count
            if objectIndex.count == 0 { removeIndexBucket(of: id) }
            return removed
        }
        let removed = removeAllFromBuckets(of: id, where: matches)
        count &-= removed.count
        shrinkIfSparse()
        return removed
    }

    /// Removes the registrations of the object whose key path equals `keyPath`, and returns them.
    mutating func removeAll(of id: ObjectIdentifier, keyPath: AnyKeyPath) -> InlineList<KVOInfo> {
        if let objectIndex = objectIndex(of: id) {
            guard let removed = objectIndex.byKeyPath[KeyPathKey(keyPath)] else { return InlineList() }
            removed.forEachElement { _ = objectIndex.remove($0) }
            count &-= removed.count
            if objectIndex.count == 0 { removeIndexBucket(of: id) }
            return removed
        }
        return removeAll(of: id) { KeyPathHashes.shared.areEqual($0.keyPath, keyPath) }
    }

    /// Removes the matching registrations held in buckets of their own (not `count`).
    private mutating func removeAllFromBuckets(
        of id: ObjectIdentifier,
        where matches: (KVOInfo) -> Bool
    )
        -> InlineList<KVOInfo>
    {
        var removed = InlineList<KVOInfo>()
        while true {
            var found: Int?
            forEachInBuckets(of: id) { index, info in
                if matches(info) { found = index }
                return found == nil
            }
            guard let index = found else { break }
            removed.append(buckets[index].info)
            remove(at: index)
        }
        return removed
    }

    private mutating func removeIndexBucket(of id: ObjectIdentifier) {
        let tagged = Self.key(id) | Self.indexTag
        var index = home(of: Self.key(id))
        while buckets[index].key != tagged { index = (index &+ 1) & mask }
        remove(at: index)
        shrinkIfSparse()
    }

    /// Removes `info` (by identity) from the object's registrations; true if it was there.
    @discardableResult
    mutating func remove(_ info: KVOInfo, of id: ObjectIdentifier) -> Bool {
        if let objectIndex = objectIndex(of: id) {
            guard objectIndex.remove(info) else { return false }
            count &-= 1
            if objectIndex.count == 0 { removeIndexBucket(of: id) }
            return true
        }
        return removeAll(of: id) { $0 === info }.isEmpty == false
    }

    /// Removes and returns every registration.
    mutating func removeAll() -> [KVOInfo] {
        var all: [KVOInfo] = []
        all.reserveCapacity(count)
        for bucket in buckets where bucket.key != 0 {
            if bucket.isIndex { bucket.index.forEachInfo { all.append($0) } } else { all.append(bucket.info) }
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
            let home = home(of: key & ~Self.indexTag)
            // The bucket at `next` may fill the hole unless its home lies cyclically in (hole, next].
            if !mayFill(hole, from: next, home: home) { continue }
            buckets[hole] = buckets[next]
            hole = next
        }
        buckets[hole] = .empty
    }

    private mutating func shrinkIfSparse() {
        if buckets.count > 64, count &* 8 < buckets.count {
            resize(to: buckets.count / 2)
        }
    }

    private mutating func resize(to capacity: Int) {
        let old = self
        buckets = Array(repeating: .empty, count: capacity)
        old.forEachUsedBucketOrIndex { place($0) }
    }
}
