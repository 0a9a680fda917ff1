import Foundation

/// A dedicated thread that can be joined (long-running loops do not belong on Dispatch's small pool).
final class TestThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        let finished = self.finished
        let thread = Thread {
            body()
            finished.signal()
        }
        thread.start()
    }

    /// Waits for the thread to finish; false if it did not within `seconds`.
    @discardableResult
    func join(seconds: Double = 120) -> Bool {
        finished.wait(timeout: .now() + seconds) == .success
    }
}
