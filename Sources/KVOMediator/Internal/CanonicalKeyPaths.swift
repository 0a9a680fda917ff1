import Synchronization

/// One key path object per stored property of a bridged object: the one its setter reports.
///
/// Swift can hand a property's getter and setter two equal key paths that are not the same object
/// (seen in the benchmarks, where a getter runs from another file's closure). Observation compares the
/// key path of each `willSet` with those its trackings read, and two objects cost it a walk of both
/// (~1,000 instructions a notified set), where one object takes `==`'s identity fast path. So a setter
/// registers its key path, once, and reads report the registered one. The setter keeps reporting its
/// own, which it holds anyway: a check of one word on each set, no retain. The key paths are kept in
/// `OnceSlots`, keyed by the property's byte offset + 1, from a home slot by that offset. A read that
/// finds no key path (no set yet, a set racing it, a full table) reports its own, which is equal: only
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

    /// Registers `keyPath`, a setter's, as the one to report for the stored property at byte offset
    /// `field`, unless one is registered already.
    @inlinable
    @inline(__always)
    func register(_ keyPath: AnyKeyPath, field: Int) {
        let home = Self.home(of: field)
        if slots.key(at: home) != UInt(bitPattern: field) &+ 1 {
            slots.insert(keyPath, under: UInt(bitPattern: field) &+ 1, from: home)
        }
    }

    /// Calls `body` with the key path to report for the stored property at byte offset `field`: the
    /// registered one, or `keyPath` while none is. Borrowed, with no retain: the table holds its key
    /// paths while it lives, and the caller holds `keyPath`.
    @inlinable
    @inline(__always)
    func withCanonical<Result>(_ keyPath: AnyKeyPath, field: Int, _ body: (AnyKeyPath) -> Result) -> Result {
        let home = Self.home(of: field)
        let found = slots.key(at: home)
        var bits: UInt = 0
        if found == UInt(bitPattern: field) &+ 1 {
            bits = slots.objectBits(at: home)
        } else if found != 0 {
            bits = slots.find(UInt(bitPattern: field) &+ 1, from: home)
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
}
