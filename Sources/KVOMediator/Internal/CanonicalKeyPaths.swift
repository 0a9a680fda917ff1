import Synchronization

/// One key path object per stored property of a bridged object: the one its reads and sets report.
///
/// Swift can hand a property's getter and setter two equal key paths that are not the same object
/// (seen in the benchmarks, where a getter runs from another file's closure). Observation compares the
/// key path of each `willSet` with those its trackings read, and two objects cost it a walk of both
/// (~1,000 instructions a notified set), where one object takes `==`'s identity fast path. So the first
/// read or set of a property registers its key path, and every one after reports that one: two loads
/// and a compare, no retain, and no key path made. The key paths are kept in `OnceSlots`, keyed by the
/// property's byte offset + 1, from a home slot by that offset. An access that finds none and cannot
/// register its own (a registration racing it, a full table) reports its own, which is equal: only
/// slower for Observation to compare.
@usableFromInline
struct CanonicalKeyPaths: ~Copyable, @unchecked Sendable {
    @usableFromInline
    let slots = OnceSlots(count: CanonicalKeyPaths.slotCount)

    /// Properties beyond this many on one object are reported with the key path each call site gives.
    @usableFromInline
    static var slotCount: Int { 16 }

    init() {}

    /// The first slot to look in for the property at byte offset `field`. Offsets are multiples of a
    /// word for most properties: the low bits say nothing.
    @inlinable
    @inline(__always)
    static func home(of field: Int) -> Int {
        Int(truncatingIfNeeded: UInt(bitPattern: field) >> 3) & (slotCount - 1)
    }

    /// Calls `body` with the key path to report for the stored property at byte offset `field`: the
    /// registered one. While none is, `keyPath()`, registered first (or the one another thread registered
    /// first); for a negative `field` (custom storage, which has no offset), `keyPath()` alone. Borrowed,
    /// with no retain: the table holds its key paths while it lives.
    ///
    /// `keyPath` is called only while none is registered: the compiler builds a literal key path where
    /// the closure is called (see `withUnregistered`), so a getter or setter that finds one makes none.
    @inlinable
    @inline(__always)
    func withCanonical<Result>(field: Int, _ keyPath: () -> AnyKeyPath, _ body: (AnyKeyPath) -> Result) -> Result {
        // Out of line too: where the offset folds to a constant only in LLVM, an inlined `keyPath()` here
        // would be a key path made before the branch, on every call.
        guard field >= 0 else { return withUnregistered(field: field, keyPath, body) }
        let home = Self.home(of: field)
        let found = slots.key(at: home)
        var bits: UInt = 0
        if found == UInt(bitPattern: field) &+ 1 {
            bits = slots.objectBits(at: home)
        } else if found != 0 {
            bits = slots.find(UInt(bitPattern: field) &+ 1, from: home)
        }
        guard _fastPath(bits != 0) else { return withUnregistered(field: field, keyPath, body) }
        return OnceSlots.withObject(bits, as: AnyKeyPath.self, body)
    }

    /// `withCanonical` while no key path is registered for `field`, or for a negative `field`: out of line,
    /// so that the optimiser moves the caller's literal key path into the closure it passes (it does for a
    /// closure given to a call, not for one inlined), and the fast path makes no key path.
    @inlinable
    @inline(never)
    func withUnregistered<Result>(field: Int, _ keyPath: () -> AnyKeyPath, _ body: (AnyKeyPath) -> Result) -> Result {
        let own = keyPath()
        guard field >= 0 else { return body(own) }
        let stored = slots.insert(own, under: UInt(bitPattern: field) &+ 1, from: Self.home(of: field))
        guard stored != 0 else { return body(own) }
        return OnceSlots.withObject(stored, as: AnyKeyPath.self, body)
    }

    /// The key path to report for the property at `field`: the registered one, else `keyPath`, which is
    /// registered (unless the table is full).
    func canonical(_ keyPath: AnyKeyPath, field: Int) -> AnyKeyPath {
        withCanonical(field: field, { keyPath }, { $0 })
    }
}
