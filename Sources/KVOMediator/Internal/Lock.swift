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
/// instructions of a pthread mutex, on the path of every notification. See ``SpinLock`` for how
/// waiters wait, and ``LockLevel`` for the order in which locks may be taken.
@usableFromInline
final class Lock: @unchecked Sendable {  // all state is atomic
    private let spinLock: SpinLock

    init(level: LockLevel = .leaf) {
        spinLock = SpinLock(level: level)
    }

    @usableFromInline
    @inline(__always)
    func lock() {
        spinLock.lock()
    }

    @usableFromInline
    @inline(__always)
    func unlock() {
        spinLock.unlock()
    }

    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try spinLock.withLock(body)
    }
}

/// The lock order, written once: a thread holding a lock takes only locks of a higher level, and
/// never a second lock of the same level. Debug builds check it on every acquisition.
///
/// 1. `controller`: a ``KVOController``'s table. Nothing is called out under it.
/// 2. `registration`: the striped locks (``StripedLocks``) guarding a registration's dependencies;
///    subscribing and pruning take a registrar's lock under it.
/// 3. `registrar`: a ``KVORegistrar``'s table, kept in the registrar's own memory; naming a slot
///    reads the field table under it.
/// 4. `leaf`: everything else (field and name tables, the slot cache, delivery lanes, hop
///    contexts, bags, streams, getters locating their storage): takes no other lock.
enum LockLevel: UInt8, Comparable {
    case controller = 1
    case registration = 2
    case registrar = 3
    case leaf = 4

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The lock itself, stored inline where it is used: ``Lock`` wraps one, and a registrar keeps one in
/// its own memory (see `KVORegistrar`).
///
/// On Linux a waiter spins briefly (the holder's sections are short), then sleeps on the lock word
/// (a futex) until the holder wakes it, so no thread spins without bound however many wait: 0 is
/// free, 1 held, 2 held with sleepers. ThreadSanitizer sees its atomics, so it checks the code under
/// it as under a mutex (on Linux it does not understand `Synchronization.Mutex`). On Apple platforms
/// it is `os_unfair_lock`: spinning, or yielding, invites priority inversion between QoS classes (why
/// `OSSpinLock` was deprecated and FBKVOController left it). The compilation condition
/// `KVOMEDIATOR_APPLE_PATH` builds that code path on Linux, with a pthread mutex in its place.
struct SpinLock: ~Copyable {
    #if canImport(Darwin) || KVOMEDIATOR_APPLE_PATH
    /// The platform's lock, in memory of its own (it must not move): `os_unfair_lock` on Apple
    /// platforms; elsewhere (the Apple code path built on Linux) a pthread mutex, which likewise
    /// puts waiters to sleep.
    private let handle: UnsafeMutablePointer<PlatformLock> = {
        let handle = UnsafeMutablePointer<PlatformLock>.allocate(capacity: 1)
        #if canImport(Darwin)
        handle.initialize(to: os_unfair_lock())
        #else
        handle.initialize(to: pthread_mutex_t())
        pthread_mutex_init(handle, nil)
        #endif
        return handle
    }()
    #else
    private let state = Atomic<UInt32>(0)
    #endif
    #if DEBUG
    private let level: LockLevel
    #endif

    init(level: LockLevel = .leaf) {
        #if DEBUG
        self.level = level
        #endif
    }

    #if canImport(Darwin) || KVOMEDIATOR_APPLE_PATH
    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(handle)
        #endif
        handle.deallocate()
    }
    #endif

    /// Takes the lock.
    @inline(__always)
    borrowing func lock() {
        #if DEBUG
        LockOrder.willLock(level)
        #endif
        #if canImport(Darwin)
        os_unfair_lock_lock(handle)
        #elseif KVOMEDIATOR_APPLE_PATH
        pthread_mutex_lock(handle)
        #else
        if state.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged { return }
        lockContended()
        #endif
    }

    /// Releases the lock.
    @inline(__always)
    borrowing func unlock() {
        #if canImport(Darwin)
        os_unfair_lock_unlock(handle)
        #elseif KVOMEDIATOR_APPLE_PATH
        pthread_mutex_unlock(handle)
        #else
        if state.exchange(0, ordering: .releasing) == 2 { wakeOne() }
        #endif
        #if DEBUG
        LockOrder.didUnlock(level)
        #endif
    }

    @inline(__always)
    borrowing func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    #if !(canImport(Darwin) || KVOMEDIATOR_APPLE_PATH)
    /// Spins a little while the holder finishes, then marks the lock as having sleepers and sleeps
    /// until woken, taking it as "held with sleepers" (the taker cannot know whether others sleep).
    @inline(never)
    private borrowing func lockContended() {
        for _ in 0..<64 {
            if state.load(ordering: .relaxed) == 0,
                state.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged
            {
                return
            }
        }
        while state.exchange(2, ordering: .acquiring) != 0 {
            sleepWhileHeld()
        }
    }

    @inline(never)
    private borrowing func sleepWhileHeld() {
        #if canImport(Glibc) || canImport(Musl)
        withUnsafePointer(to: state) { SwiftRuntime.wait(on: $0, whileItHolds: 2) }
        #else
        yieldThread()
        #endif
    }

    @inline(never)
    private borrowing func wakeOne() {
        #if canImport(Glibc) || canImport(Musl)
        withUnsafePointer(to: state) { SwiftRuntime.wakeOne(on: $0) }
        #endif
    }
    #endif
}

#if DEBUG
/// Checks ``LockLevel``'s order in debug builds: the levels this thread holds, innermost last.
enum LockOrder {
    static func willLock(_ level: LockLevel) {
        let context = ThreadContext.current
        if let held = context.heldLockLevels.last, held >= level {
            preconditionFailure(
                "KVOMediator: lock order violated: taking a \(level) lock while holding a \(held) lock "
                    + "(see LockLevel)"
            )
        }
        context.heldLockLevels.append(level)
    }

    static func didUnlock(_ level: LockLevel) {
        let context = ThreadContext.current
        if let index = context.heldLockLevels.lastIndex(of: level) { context.heldLockLevels.remove(at: index) }
    }
}
#endif

/// A fixed pool of locks shared by all registrations, so that a registration carries no mutex of its own.
enum StripedLocks {
    /// The locks, never released: held unmanaged, so that taking one does no reference counting.
    nonisolated(unsafe) private static let locks: UnsafeMutableBufferPointer<Unmanaged<Lock>> = {
        let locks = UnsafeMutableBufferPointer<Unmanaged<Lock>>.allocate(capacity: 64)
        for index in locks.indices {
            locks.initializeElement(at: index, to: .passRetained(Lock(level: .registration)))
        }
        return locks
    }()

    static func lock(for object: AnyObject) -> StripedLock {
        // The address's middle bits, mixed by a multiplication (no `Hasher`: this runs on every
        // registration and removal).
        let bits = UInt(bitPattern: ObjectIdentifier(object)) &* goldenRatioMultiplier
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

#if canImport(Darwin)
typealias PlatformLock = os_unfair_lock
#elseif KVOMEDIATOR_APPLE_PATH
typealias PlatformLock = pthread_mutex_t
#endif

/// How a thread waits for callbacks in flight on other threads (which run user code, for as long as
/// it takes): it spins briefly, then yields, then sleeps for growing intervals up to a millisecond,
/// so that a long wait sleeps instead of burning a core.
struct Backoff {
    private var attempts = 0

    mutating func wait() {
        attempts += 1
        if attempts <= 64 { return }
        if attempts <= 128 { return yieldThread() }
        let micros = min(1 << min(attempts - 128, 10), 1_000)
        usleep(UInt32(micros))
    }
}

/// Gives up the processor while waiting for another thread.
func yieldThread() {
    sched_yield()
}

/// A value and the lock that guards it: the value is reached only inside `withLock`, so every access
/// to it holds the lock.
///
/// Why `@exclusivity(unchecked)` is sound here: Swift's run-time exclusivity check guards against two
/// overlapping accesses to the value, and the lock already rules them out (one thread at a time, each
/// access inside `withLock`); the check would only add two runtime calls to every access. Nothing
/// under the lock may call out to user code or take a lock of a lower level (``LockLevel``).
///
/// ```swift
/// let counts = LockProtected([String: Int]())
/// counts.withLock { $0["a", default: 0] += 1 }
/// ```
final class LockProtected<State>: @unchecked Sendable {  // `state` is reached only under `spinLock`
    private let spinLock: SpinLock
    @exclusivity(unchecked) private var state: State

    init(_ state: State, level: LockLevel = .leaf) {
        spinLock = SpinLock(level: level)
        self.state = state
    }

    /// Runs `body` with the value, under the lock.
    @inline(__always)
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try spinLock.withLock { try body(&state) }
    }
}

/// The base of an internal class whose mutable fields are one value, `guarded`, that only one thread
/// reaches at a time by the owner's own rule: a lock it holds for every access (a registration's striped
/// lock), or a thread that alone uses the object (an evaluation's tracker). The rule covers the whole
/// value: an access to one of its fields is an access to `guarded` (ThreadSanitizer reports two
/// threads' accesses to two of its fields as a race), so a field read by another rule (set before
/// the object is shared, read with no lock) is a stored property of the subclass instead.
///
/// Why `@exclusivity(unchecked)` is sound here: the run-time check it turns off catches, on one thread,
/// an access to `guarded` while a modification of it is still in progress (threads it does not see:
/// those the owner's rule keeps apart). No subclass holds an `inout` access to `guarded` across a call
/// that may reach the object again (user code, an evaluation): each access is a load, a store or an
/// edit of one field. The check would add two runtime calls to every access, on paths that run for
/// every change.
@usableFromInline
class GuardedFields<Fields> {
    @usableFromInline @exclusivity(unchecked) final var guarded: Fields

    init(guarded: Fields) {
        self.guarded = guarded
    }
}
