import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A small lock for the library's short critical sections (table lookups and edits: no user code
/// runs under it, and nothing under it waits for another thread).
///
/// Taking it when free is one compare-and-exchange and releasing it one store: a tenth of the
/// instructions of a pthread mutex, on the path of every notification. A waiter spins briefly, then
/// yields the processor until the holder is done. ThreadSanitizer sees its atomics, so it checks the
/// code under it as under a mutex (on Linux it does not understand `Synchronization.Mutex`, which
/// waits with raw futex calls).
final class Lock: @unchecked Sendable {  // all state is atomic
    private let spinLock = SpinLock()

    init() {}

    @inline(__always)
    func lock() {
        spinLock.lock()
    }

    @inline(__always)
    func unlock() {
        spinLock.unlock()
    }

    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try spinLock.withLock(body)
    }
}

/// The lock itself, stored inline where it is used: ``Lock`` wraps one, and a registrar keeps one in
/// its own memory (see `KVORegistrar`). 0 is free, 1 held.
struct SpinLock: ~Copyable {
    private let state = Atomic<UInt32>(0)

    init() {}

    /// Takes the lock.
    @inline(__always)
    borrowing func lock() {
        if state.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged { return }
        lockContended()
    }

    @inline(never)
    private borrowing func lockContended() {
        var attempts = 0
        while true {
            if state.load(ordering: .relaxed) == 0,
                state.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
            {
                return
            }
            attempts += 1
            if attempts > 32 { yieldThread() }
        }
    }

    /// Releases the lock.
    @inline(__always)
    borrowing func unlock() {
        state.store(0, ordering: .releasing)
    }

    @inline(__always)
    borrowing func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A fixed pool of locks shared by all registrations, so that a registration carries no mutex of its own.
enum StripedLocks {
    /// The locks, never released: held unmanaged, so that taking one does no reference counting.
    nonisolated(unsafe) private static let locks: UnsafeMutableBufferPointer<Unmanaged<Lock>> = {
        let locks = UnsafeMutableBufferPointer<Unmanaged<Lock>>.allocate(capacity: 64)
        for index in locks.indices { locks.initializeElement(at: index, to: .passRetained(Lock())) }
        return locks
    }()

    static func lock(for object: AnyObject) -> StripedLock {
        // The address's middle bits, mixed by a multiplication (no `Hasher`: this runs on every
        // registration and removal).
        let bits = UInt(bitPattern: ObjectIdentifier(object)) &* 0x9E37_79B9_7F4A_7C15
        return StripedLock(unmanaged: locks[Int(truncatingIfNeeded: bits >> 58)])
    }
}

/// One of the striped locks.
struct StripedLock {
    let unmanaged: Unmanaged<Lock>

    @inline(__always)
    func lock() {
        unmanaged._withUnsafeGuaranteedRef { $0.lock() }
    }

    @inline(__always)
    func unlock() {
        unmanaged._withUnsafeGuaranteedRef { $0.unlock() }
    }

    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// Gives up the processor while waiting for another thread.
func yieldThread() {
    sched_yield()
}
