import Synchronization

/// One key path object per stored property of a bridged object: the one its setter reports.
///
/// Swift can hand a property's getter and setter two equal key paths that are not the same object
/// (seen in the benchmarks, where a getter runs from another file's closure). Observation compares the
/// key path of each `willSet` with those its trackings read, and two objects cost it a walk of both
/// (~1,000 instructions a notified set), where one object takes `==`'s identity fast path. So the first
/// set that finds none registers its key path, and every read and set after reports that one: a check
/// of one word, no retain, and no key path made. The key paths are kept in `OnceSlots`, keyed by the
/// property's byte offset + 1, from a home slot by that offset. A read or set that finds none (no set
/// yet, a set racing it, a full table) reports its own, which is equal: only slower for Observation to
/// compare.
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
    /// registered one. While none is, with `keyPath()`, which a setter (`registering`) registers first,
    /// and the one registered if another thread was first. Borrowed, with no retain: the table holds its
    /// key paths while it lives, and the caller holds its own.
    ///
    /// `keyPath` is called only while none is registered: the compiler builds a literal key path where
    /// the closure is called (see `withUnregistered`), so a getter or setter that finds one makes none.
    @inlinable
    @inline(__always)
    func withCanonical<Result>(
        field: Int,
        registering: Bool,
        _ keyPath: () -> AnyKeyPath,
        _ body: (AnyKeyPath) -> Result
    ) -> Result {
        let home = Self.home(of: field)
        let found = slots.key(at: home)
        var bits: UInt = 0
        if found == UInt(bitPattern: field) &+ 1 {
            bits = slots.objectBits(at: home)
        } else if found != 0 {
            bits = slots.find(UInt(bitPattern: field) &+ 1, from: home)
        }
        guard _fastPath(bits != 0) else {
            return withUnregistered(field: field, registering: registering, keyPath, body)
        }
        return Unmanaged<AnyKeyPath>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef(body)
    }

    /// `withCanonical` while no key path is registered for `field`: out of line, so that the optimiser
    /// moves the caller's literal key path into the closure it passes (it does for a closure given to a
    /// call, not for one inlined), and the fast path makes no key path.
    @inlinable
    @inline(never)
    func withUnregistered<Result>(
        field: Int,
        registering: Bool,
        _ keyPath: () -> AnyKeyPath,
        _ body: (AnyKeyPath) -> Result
    ) -> Result {
        let own = keyPath()
        let key = UInt(bitPattern: field) &+ 1
        let stored = registering ? slots.insert(own, under: key, from: Self.home(of: field)) : 0
        guard stored != 0 else { return body(own) }
        return Unmanaged<AnyKeyPath>.fromOpaque(UnsafeRawPointer(bitPattern: stored)!)._withUnsafeGuaranteedRef(body)
    }

    /// Registers `keyPath` for the property at `field` unless one is, and returns the one registered
    /// (`keyPath`, or the one registered first).
    @discardableResult
    func register(_ keyPath: AnyKeyPath, field: Int) -> AnyKeyPath {
        withCanonical(field: field, registering: true, { keyPath }, { $0 })
    }

    /// The key path registered for the property at `field`, or `keyPath` while none is.
    func canonical(_ keyPath: AnyKeyPath, field: Int) -> AnyKeyPath {
        withCanonical(field: field, registering: false, { keyPath }, { $0 })
    }
}
