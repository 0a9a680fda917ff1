import Synchronization

/// A reference stored at most once, then read by any thread: `AtomicLazyReference`'s contract, whose
/// `load()` is a call into unspecialised generic code of the Synchronization library in this toolchain
/// (about 160 instructions a load under callgrind, two per bridged set), where this one inlines to an
/// atomic load. Unsafe: it holds the instance as a retained pointer's bits.
@usableFromInline
struct OnceReference<Instance: AnyObject & Sendable>: ~Copyable, Sendable {
    /// The instance's address, retained once; 0 while none is stored.
    @usableFromInline
    let bits = Atomic<UInt>(0)

    @usableFromInline
    init() {}

    deinit {
        let stored = bits.load(ordering: .acquiring)
        if stored != 0 { Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: stored)!).release() }
    }

    /// The stored instance, or nil while none is.
    @inlinable
    @inline(__always)
    func load() -> Instance? {
        let stored = bits.load(ordering: .acquiring)
        guard stored != 0 else { return nil }
        return Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: stored)!).takeUnretainedValue()
    }

    /// Whether an instance is stored.
    @inlinable
    @inline(__always)
    var isStored: Bool {
        bits.load(ordering: .acquiring) != 0
    }

    /// Calls `body` with the stored instance, borrowed (no retain: this reference holds it), or returns
    /// nil while none is stored.
    @inlinable
    @inline(__always)
    func withInstance<Result>(_ body: (Instance) -> Result) -> Result? {
        let stored = bits.load(ordering: .acquiring)
        guard stored != 0 else { return nil }
        return Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: stored)!)._withUnsafeGuaranteedRef(body)
    }

    /// Stores `instance` unless an instance is stored already; returns the stored one.
    func storeIfNil(_ instance: Instance) -> Instance {
        let desired = UInt(bitPattern: Unmanaged.passRetained(instance).toOpaque())
        let (exchanged, original) = bits.compareExchange(
            expected: 0,
            desired: desired,
            successOrdering: .acquiringAndReleasing,
            failureOrdering: .acquiring
        )
        if exchanged { return instance }
        Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: desired)!).release()
        return Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: original)!).takeUnretainedValue()
    }
}

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

    /// Calls `body` with the object whose retained address is `bits` (a nonzero address this table gave),
    /// borrowed, with no retain: the table holds its objects while it lives. The caller stores objects of
    /// `type` only.
    @inlinable
    @inline(__always)
    static func withObject<Object: AnyObject, Result>(
        _ bits: UInt,
        as type: Object.Type,
        _ body: (Object) -> Result
    ) -> Result {
        Unmanaged<Object>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef(body)
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
