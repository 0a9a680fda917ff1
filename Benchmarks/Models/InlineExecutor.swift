import Synchronization

/// A task executor that runs every job on the thread that drives it: the async scenarios' one thread.
///
/// Swift's global executor runs jobs on a pool of threads that wake and park one another, so its
/// instruction count varies from run to run. A task that prefers this executor runs all its
/// nonisolated code here instead, one job after another, in the order they were enqueued.
final class InlineExecutor: TaskExecutor {
    private let jobs = Mutex<[UnownedJob]>([])

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
    }

    /// Runs `operation` in a task on this thread, returning once it has finished.
    ///
    /// Fails if the queue runs dry before the task finishes: a job went to another executor, and the
    /// count would then include another thread's scheduling.
    static func run(_ operation: @escaping @Sendable () async -> Void) {
        let executor = InlineExecutor()
        let finished = Mutex(false)
        Task(executorPreference: executor) {
            await operation()
            finished.withLock { $0 = true }
        }
        // Jobs are taken a batch at a time, swapping arrays, so that the driver allocates nothing per job.
        var batch: [UnownedJob] = []
        while true {
            executor.jobs.withLock { swap(&$0, &batch) }
            if batch.isEmpty { break }
            for job in batch { job.runSynchronously(on: executor.asUnownedTaskExecutor()) }
            batch.removeAll(keepingCapacity: true)
        }
        precondition(finished.withLock { $0 }, "an async scenario's task left InlineExecutor's thread")
    }
}
