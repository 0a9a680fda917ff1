import Foundation
import Synchronization

/// Fails the run when a thread stops making progress: every second it reads each thread's progress, and
/// a thread that is neither waiting for others nor done, and has not moved for `limit` seconds, is
/// taken to be deadlocked. It prints every thread's stage and exits with status 3. The main thread is
/// watched too (last), through the joins and the release of every object at the end.
final class Watchdog: Sendable {
    private let stats: [WorkerStats]
    private let limit: Double
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(watching stats: [WorkerStats], limit: Double) {
        self.stats = stats
        self.limit = limit
    }

    func start() {
        let thread = Thread { [self] in
            watch()
            finished.signal()
        }
        thread.name = "soak watchdog"
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        finished.wait()
    }

    private func watch() {
        var last = stats.map { $0.progress.load(ordering: .relaxed) }
        var movedAt = Array(repeating: monotonicNanoseconds(), count: stats.count)
        while !stopped.load(ordering: .relaxed) {
            usleep(250_000)
            let now = monotonicNanoseconds()
            for (index, worker) in stats.enumerated() {
                let progress = worker.progress.load(ordering: .relaxed)
                let stage = worker.stage
                if progress != last[index] || stage == .waiting || stage == .done {
                    last[index] = progress
                    movedAt[index] = now
                } else if Double(now - movedAt[index]) / 1e9 >= limit {
                    fail(stuck: index)
                }
            }
        }
    }

    /// The last stats watched are the main thread's.
    private func name(_ index: Int) -> String {
        index == stats.count - 1 ? "main thread" : "thread \(index)"
    }

    private func fail(stuck index: Int) -> Never {
        var report = "watchdog: \(name(index)) made no progress for \(Int(limit)) s (a deadlock?)\n"
        for (other, worker) in stats.enumerated() {
            report += "  \(name(other)): \(worker.stage), progress \(worker.progress.load(ordering: .relaxed))\n"
        }
        let violations = Violations.shared.summary.count
        report += "violations so far: \(violations)\n"
        FileHandle.standardError.write(Data(report.utf8))
        exit(3)
    }
}
