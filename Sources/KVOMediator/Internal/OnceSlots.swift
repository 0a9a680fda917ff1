import Synchronization

/// A small lock-free table of objects keyed by a nonzero word, each stored once and held while the table
/// lives: what the Observation bridge keeps its key paths in (`CanonicalKeyPaths`) and what class
/// layouts are cached in (`ObservedFields`).
///
/// Each slot is two words: its key (0: free), then its object's retained address (0: not stored yet).
/// A search starts at a home slot the caller chooses and goes on slot by slot. A slot is claimed by a
/// compare-and-exchange of its key word, then its object is stored once. A search that finds no object
/// (none stored, a store in progress, a full table) returns 0, and the caller takes a slower path.
/// Unsafe: a manually allocated buffer of atomics, and objects held as retained bits.
@usableFromInline
struct OnceSlots: ~Copyable, @unchecked Sendable {
    @usableFromInline
    let words: UnsafeMutablePointer<Atomic<UInt>>
    /// The number of slots, a power of two.
    @usableFromInline
    let count: Int

    init(count: Int) {
        precondition(count > 0 && count & (count - 1) == 0, "a power of two")
        self.count = count
        words = .allocate(capacity: count * 2)
        for index in 0..<count * 2 { (words + index).initialize(to: Atomic(0)) }
    }

    deinit {
        for slot in 0..<count {
            let bits = objectBits(at: slot)
            if bits != 0 { Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
        }
        words.deinitialize(count: count * 2)
        words.deallocate()
    }

    /// The key of `slot` (0: free).
    @inlinable
    @inline(__always)
    func key(at slot: Int) -> UInt {
        words[slot &* 2].load(ordering: .acquiring)
    }

    /// The retained address of the object stored in `slot` (0: none yet).
    @inlinable
    @inline(__always)
    func objectBits(at slot: Int) -> UInt {
        words[slot &* 2 &+ 1].load(ordering: .acquiring)
    }

    /// The address of the object stored under `key` (0: none), searched from slot `home`.
    @usableFromInline
    func find(_ key: UInt, from home: Int) -> UInt {
        var slot = home & (count - 1)
        for _ in 0..<count {
            let found = self.key(at: slot)
            if found == 0 { return 0 }
            if found == key { return objectBits(at: slot) }
            slot = (slot &+ 1) & (count - 1)
        }
        return 0
    }

    /// Stores `object` under `key`, searched from slot `home`, unless an object is stored under it already
    /// (or the table is full). Returns the address of the object stored under `key` now: `object`'s, the
    /// one another thread stored first, or 0 (that thread's store in progress, a full table).
    @usableFromInline
    @discardableResult
    func insert(_ object: AnyObject, under key: UInt, from home: Int) -> UInt {
        var slot = home & (count - 1)
        for _ in 0..<count {
            var found = self.key(at: slot)
            if found == 0 {
                let (claimed, original) = words[slot &* 2].compareExchange(
                    expected: 0,
                    desired: key,
                    ordering: .acquiringAndReleasing
                )
                if claimed {
                    let bits = UInt(bitPattern: Unmanaged.passRetained(object).toOpaque())
                    words[slot &* 2 &+ 1].store(bits, ordering: .releasing)
                    return bits
                }
                found = original
            }
            if found == key { return objectBits(at: slot) }
            slot = (slot &+ 1) & (count - 1)
        }
        return 0
    }
}
