import Synchronization

/// What a soak thread is doing, for the watchdog.
enum WorkerStage: Int, CustomStringConvertible {
    case settingUp, running, endingSessions, waiting, checking, tearingDown, releasingGroups, done

    var description: String {
        switch self {
        case .settingUp: "setting up"
        case .running: "running"
        case .endingSessions: "ending its churned registrations"
        case .waiting: "waiting for the other threads"
        case .checking: "checking its whole-phase registrations"
        case .tearingDown: "ending its whole-phase registrations"
        case .releasingGroups: "releasing every group's objects"
        case .done: "done"
        }
    }
}

/// What one soak thread counted; kept in a local variable while it runs.
struct WorkerTally {
    var timings = SetTimings()
    /// Records delivered to this thread's registrations (wherever the callbacks ran).
    var notifications = 0
    var churnedRegistrations = 0
    var sessions = 0
    var middleLinkChanges = 0
    var transientsReleased = 0
    var samples = WeakSamples()
}

/// One soak thread's progress and counts: its progress and stage are read by the watchdog while it runs, the rest
/// once it has been joined.
final class WorkerStats: @unchecked Sendable {  // the plain fields are written by its thread only, read after join
    /// Keeps the atomics off the cache lines of other threads' stats.
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    /// Increases with every round and every step of the setup and teardown.
    let progress = Atomic<Int>(0)
    private let stageValue = Atomic<Int>(WorkerStage.settingUp.rawValue)
    private let trailingPadding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)

    /// The thread's counts, stored when it finishes.
    var tally = WorkerTally()

    var stage: WorkerStage {
        get { WorkerStage(rawValue: stageValue.load(ordering: .relaxed))! }
        set { stageValue.store(newValue.rawValue, ordering: .relaxed) }
    }

    func advance() {
        progress.wrappingAdd(1, ordering: .relaxed)
    }
}
