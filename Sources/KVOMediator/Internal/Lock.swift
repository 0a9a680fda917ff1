#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex.
///
/// ThreadSanitizer understands pthread mutexes; on Linux it does not understand
/// `Synchronization.Mutex` (false race reports and a large slow-down), so every lock here is this one.
final class Lock: @unchecked Sendable {  // the mutex guards all access to itself
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    @inline(__always)
    func lock() {
        pthread_mutex_lock(mutex)
    }

    @inline(__always)
    func unlock() {
        pthread_mutex_unlock(mutex)
    }

    @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
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
