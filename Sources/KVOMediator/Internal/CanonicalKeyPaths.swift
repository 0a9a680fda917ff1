import Synchronization

/// One key path object per stored property of a bridged object: the first one reported for it.
///
/// Swift makes a key path literal's object once per place that writes it, so a property's getter and
/// setter can hand the bridge two equal key paths that are not the same object (a getter inlined
/// into another file's code, for one). Observation compares the key path of each `willSet` with those
/// its trackings read, and two objects cost it a walk of both (~1,000 instructions a notified set);
/// one object takes `==`'s identity fast path. A small open-addressed table, lock-free: a slot is
/// claimed for a property by a compare-and-exchange of its field word, then its key path is stored
/// once. A reader that finds the field but not yet the key path, or a full table, uses its own.
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

    /// Calls `body` with the key path to report for the stored property at byte offset `field`: the
    /// first one given for it, which `keyPath` becomes if it is the first. Borrowed, with no retain: the
    /// table holds its key paths while it lives, and the caller holds `keyPath`.
    @inlinable
    @inline(__always)
    func withCanonical<Result>(_ keyPath: AnyKeyPath, field: Int, _ body: (AnyKeyPath) -> Result) -> Result {
        let home = Self.home(of: field)
        var bits: UInt = 0
        if words[home &* 2].load(ordering: .acquiring) == UInt(bitPattern: field) &+ 1 {
            bits = words[home &* 2 &+ 1].load(ordering: .acquiring)
        }
        let canonical =
            bits != 0
            ? Unmanaged<AnyKeyPath>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)
            : Unmanaged.passUnretained(canonical(keyPath, field: field))
        return canonical._withUnsafeGuaranteedRef(body)
    }

    /// `withCanonical`'s search beyond the first slot, which claims a free slot for a property not
    /// found. The key path it returns is `keyPath` or one the table holds.
    @usableFromInline
    func canonical(_ keyPath: AnyKeyPath, field: Int) -> AnyKeyPath {
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
                    return keyPath
                }
                found = original
            }
            if found == tag {
                let bits = words[slot * 2 + 1].load(ordering: .acquiring)
                guard bits != 0 else { return keyPath }
                return Unmanaged<AnyKeyPath>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
            }
            slot = (slot &+ 1) & (Self.slotCount - 1)
        }
        return keyPath
    }
}
