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
