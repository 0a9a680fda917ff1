#if DEBUG
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Test-only (debug builds): one thread chosen by a test pauses at a chosen point of the gate's protocol,
/// so that a test can make another thread act right then.
extension GatePasses {
    /// Where the chosen thread pauses.
    enum PausePoint: Int {
        /// Giving its pass back, between marking its word as leaving and reading the gate.
        case givingPassBack = 1
        /// The last one out of a gate whose release is held, between reading the passes and leaving.
        case leavingLastAfterReadingPasses = 2
    }

    /// Where the chosen thread is.
    enum PauseStage: Int {
        /// No thread chosen, or it has not reached its point yet.
        case none = 0
        /// Paused at its point.
        case paused = 1
        /// Resumed: it goes on from its point.
        case resumed = 2
    }

    /// The chosen thread's `pthread_self()` as an integer; 0: none.
    private static let chosenThread = Atomic<UInt>(0)
    private static let stage = Atomic<Int>(0)
    private static let pauseMilliseconds = Atomic<Int>(0)
    private static let chosenPoint = Atomic<Int>(0)

    /// Makes this thread pause for `milliseconds` the next time it reaches `point`.
    static func pauseThisThread(at point: PausePoint, milliseconds: Int) {
        pauseMilliseconds.store(milliseconds, ordering: .relaxed)
        chosenPoint.store(point.rawValue, ordering: .relaxed)
        stage.store(PauseStage.none.rawValue, ordering: .relaxed)
        chosenThread.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .releasing)
    }

    /// Where the chosen thread is (`.none` until it pauses).
    static var pauseStage: PauseStage {
        PauseStage(rawValue: stage.load(ordering: .acquiring)) ?? .none
    }

    /// Called at `point` (see `KVOInfo+Gate.swift`): pauses this thread if it is the chosen one and the
    /// point is the chosen one.
    static func pauseIfChosen(at point: PausePoint) {
        let chosen = chosenThread.load(ordering: .acquiring)
        guard chosen != 0, chosen == UInt(bitPattern: Int(bitPattern: pthread_self())) else { return }
        guard chosenPoint.load(ordering: .relaxed) == point.rawValue else { return }
        chosenThread.store(0, ordering: .relaxed)
        stage.store(PauseStage.paused.rawValue, ordering: .releasing)
        usleep(UInt32(pauseMilliseconds.load(ordering: .relaxed) * 1_000))
        stage.store(PauseStage.resumed.rawValue, ordering: .releasing)
    }
}
#endif
