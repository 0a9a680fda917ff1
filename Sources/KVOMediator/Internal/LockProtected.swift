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
