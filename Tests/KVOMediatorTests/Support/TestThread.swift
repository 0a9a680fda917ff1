import Foundation
import Testing

/// A dedicated thread that can be joined (long-running loops do not belong on Dispatch's small pool).
///
/// Joining also means that the body, and everything it captured, has been released: otherwise the
/// exiting thread could keep a test's objects alive past the end of the run, and LeakSanitizer,
/// which cannot see a Swift object's encoded pointer to its weak-reference side table, would
/// report that side table as leaked.
final class TestThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> Void) {
        let finished = self.finished
        let job = Job(body)
        let thread = Thread {
            job.run()
            finished.signal()
        }
        thread.start()
    }

    /// Waits for the thread to finish; false, and an issue recorded, if it did not within `seconds`
    /// (a test must never go on to check results that the thread is still writing).
    @discardableResult
    func join(seconds: Double = 300, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let done = finished.wait(timeout: .now() + seconds) == .success
        if !done { Issue.record("the thread did not finish within \(seconds) s", sourceLocation: sourceLocation) }
        return done
    }
}

/// A thread's body, dropped as soon as it has run.
private final class Job: @unchecked Sendable {  // `body` is touched only by the one thread that runs it
    private var body: (@Sendable () -> Void)?

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    func run() {
        let body = self.body
        self.body = nil
        body?()
    }
}
