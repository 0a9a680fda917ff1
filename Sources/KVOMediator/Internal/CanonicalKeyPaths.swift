import Synchronization

/// One key path object per stored property of a bridged object: the one its setter reports.
///
/// Swift can hand a property's getter and setter two equal key paths that are not the same object
/// (seen in the benchmarks, where a getter runs from another file's closure). Observation compares the
/// key path of each `willSet` with those its trackings read, and two objects cost it a walk of both
/// (~1,000 instructions a notified set), where one object takes `==`'s identity fast path. So a setter
/// registers its key path, once, and reads report the registered one. The setter keeps reporting its
/// own, which it holds anyway: a check of one word on each set, no retain. A small open-addressed
/// table, lock-free: a slot is claimed for a property by a compare-and-exchange of its field word, then
/// its key path is stored once. A read that finds no key path (no set yet, a set racing it, a full
/// table) reports its own, which is equal: only slower for Observation to compare.
/// Unsafe: its words are a manually allocated buffer of atomics, and it holds key paths as retained
/// bits.
@usableFromInline
struct CanonicalKeyPaths: ~Copyable, @unchecked Sendable {
    /// Slots, each two words: the property's byte offset + 1 (0: free), then its key path's retained
    /// address (0: not stored yet).
    @usableFromInline
    let words: UnsafeMutablePointer<Atomic<UInt>>

    /// Properties beyond this many on one object are reported with the key path each call site gives.
    @usableFromInline
    static var slotCount: Int { 16 }

    init() {
        words = .allocate(capacity: Self.slotCount * 2)
        for index in 0..<Self.slotCount * 2 { (words + index).initialize(to: Atomic(0)) }
    }

    deinit {
        for slot in 0..<Self.slotCount {
            let bits = words[slot * 2 + 1].load(ordering: .acquiring)
            if bits != 0 { Unmanaged<AnyKeyPath>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).release() }
        }
        words.deinitialize(count: Self.slotCount * 2)
        words.deallocate()
    }

    /// The first slot to look in for the property at byte offset `field`. Offsets are multiples of a
    /// word for most properties: the low bits say nothing.
    @inlinable
    @inline(__always)
    static func home(of field: Int) -> Int {
        Int(truncatingIfNeeded: UInt(bitPattern: field) >> 3) & (slotCount - 1)
    }

    /// Registers `keyPath`, a setter's, as the one to report for the stored property at byte offset
    /// `field`, unless one is registered already.
    @inlinable
    @inline(__always)
    func register(_ keyPath: AnyKeyPath, field: Int) {
        if words[Self.home(of: field) &* 2].load(ordering: .acquiring) != UInt(bitPattern: field) &+ 1 {
            registerBeyondHome(keyPath, field: field)
        }
    }

    /// Calls `body` with the key path to report for the stored property at byte offset `field`: the
    /// registered one, or `keyPath` while none is. Borrowed, with no retain: the table holds its key
    /// paths while it lives, and the caller holds `keyPath`.
    @inlinable
    @inline(__always)
    func withCanonical<Result>(_ keyPath: AnyKeyPath, field: Int, _ body: (AnyKeyPath) -> Result) -> Result {
        let home = Self.home(of: field)
        let found = words[home &* 2].load(ordering: .acquiring)
        var bits: UInt = 0
        if found == UInt(bitPattern: field) &+ 1 {
            bits = words[home &* 2 &+ 1].load(ordering: .acquiring)
        } else if found != 0 {
            bits = registeredBeyondHome(field: field)
        }
        let canonical =
            bits != 0
            ? Unmanaged<AnyKeyPath>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
            : Unmanaged.passUnretained(keyPath)
        return canonical._withUnsafeGuaranteedRef(body)
    }

    /// The key path registered for the property at `field`, or `keyPath` while none is.
    func canonical(_ keyPath: AnyKeyPath, field: Int) -> AnyKeyPath {
        withCanonical(keyPath, field: field) { $0 }
    }

    /// The registered key path's bits for the property at `field` (0: none), searched past its home
    /// slot, which another property holds.
    @usableFromInline
    func registeredBeyondHome(field: Int) -> UInt {
        let tag = UInt(bitPattern: field) &+ 1
        var slot = Self.home(of: field)
        for _ in 0..<Self.slotCount {
            let found = words[slot * 2].load(ordering: .acquiring)
            if found == 0 { return 0 }
            if found == tag { return words[slot * 2 + 1].load(ordering: .acquiring) }
            slot = (slot &+ 1) & (Self.slotCount - 1)
        }
        return 0
    }

    /// `register`'s search past the home slot: claims the first free slot unless the property has one.
    @usableFromInline
    func registerBeyondHome(_ keyPath: AnyKeyPath, field: Int) {
        let tag = UInt(bitPattern: field) &+ 1
        var slot = Self.home(of: field)
        for _ in 0..<Self.slotCount {
            var found = words[slot * 2].load(ordering: .acquiring)
            if found == 0 {
                let (claimed, original) = words[slot * 2].compareExchange(
                    expected: 0,
                    desired: tag,
                    ordering: .acquiringAndReleasing
                )
                if claimed {
                    let bits = UInt(bitPattern: Unmanaged.passRetained(keyPath).toOpaque())
                    words[slot * 2 + 1].store(bits, ordering: .releasing)
                    return
                }
                found = original
            }
            if found == tag { return }
            slot = (slot &+ 1) & (Self.slotCount - 1)
        }
    }
}
