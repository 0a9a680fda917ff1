import Foundation

/// A dedicated thread that can be joined; its body, and what it captured, are released before `join`
/// returns, so that nothing a thread held outlives the run.
final class SoakThread: Sendable {
    private let finished = DispatchSemaphore(value: 0)

    init(name: String, _ body: @escaping @Sendable () -> Void) {
        let finished = self.finished
        let job = OneShot(body)
        let thread = Thread {
            job.run()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    func join() {
        finished.wait()
    }
}

/// A body that is dropped as soon as it has run.
private final class OneShot: @unchecked Sendable {  // `body` is touched only by the one thread that runs it
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
