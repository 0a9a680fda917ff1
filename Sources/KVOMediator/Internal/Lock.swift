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
    private let state = Atomic<UInt32>(0)

    init() {}

    @inline(__always)
    func lock() {
        acquireSpinLock(state)
    }

    @inline(__always)
    func unlock() {
        releaseSpinLock(state)
    }

    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        acquireSpinLock(state)
        defer { releaseSpinLock(state) }
        return try body()
    }
}

/// Takes the lock whose word is `state` (0 free, 1 held).
@inline(__always)
func acquireSpinLock(_ state: borrowing Atomic<UInt32>) {
    if state.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged { return }
    acquireContendedSpinLock(state)
}

@inline(never)
func acquireContendedSpinLock(_ state: borrowing Atomic<UInt32>) {
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

/// Releases the lock whose word is `state`.
@inline(__always)
func releaseSpinLock(_ state: borrowing Atomic<UInt32>) {
    state.store(0, ordering: .releasing)
}

/// A fixed pool of locks shared by all registrations, so that a registration carries no mutex of its own.
enum StripedLocks {
    private static let locks: [Lock] = (0..<64).map { _ in Lock() }

    static func lock(for object: AnyObject) -> Lock {
        let bits = UInt(bitPattern: ObjectIdentifier(object).hashValue)
        return locks[Int((bits >> 4) & 63)]
    }
}

/// Gives up the processor while waiting for another thread.
func yieldThread() {
    sched_yield()
}
