import Foundation
import KVOMediator

/// A model that any thread may read and write: its storage sits behind a lock and its changes are
/// announced by hand. Thread tests use it so that the only races left to find are the library's.
final class SharedCell: KeyValueObservable, @unchecked Sendable {  // storage is guarded by `lock`
    let kvoRegistrar = KVORegistrar()
    private let lock = NSLock()
    private var storedValue = 0
    private var storedNext: SharedCell?

    init(value: Int = 0, next: SharedCell? = nil) {
        storedValue = value
        storedNext = next
    }

    var value: Int {
        get {
            accessValue(for: \.value)
            return lock.withLock { storedValue }
        }
        set {
            willChangeValue(for: \.value)
            lock.withLock { storedValue = newValue }
            didChangeValue(for: \.value)
        }
    }

    var next: SharedCell? {
        get {
            accessValue(for: \.next)
            return lock.withLock { storedNext }
        }
        set {
            willChangeValue(for: \.next)
            lock.withLock { storedNext = newValue }
            didChangeValue(for: \.next)
        }
    }

    /// A computed property over two cells.
    var sumWithNext: Int { value + (next?.value ?? 0) }
}
