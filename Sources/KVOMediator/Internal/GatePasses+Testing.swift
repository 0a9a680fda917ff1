#if DEBUG
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Test-only (debug builds): one thread chosen by a test pauses while it gives its pass back, between
/// marking its word as leaving and reading the gate, so that a test can end the registration right then.
extension GatePasses {
    /// Where the chosen thread is.
    enum PauseStage: Int {
        /// No thread chosen, or it has not given a pass back yet.
        case none = 0
        /// Paused, its word marked as leaving.
        case paused = 1
        /// Resumed: it reads the gate next.
        case resumed = 2
    }

    /// The chosen thread's `pthread_self()` as an integer; 0: none.
    private static let chosenThread = Atomic<UInt>(0)
    private static let stage = Atomic<Int>(0)
    private static let pauseMilliseconds = Atomic<Int>(0)

    /// Makes this thread pause for `milliseconds` the next time it gives a pass back.
    static func pauseThisThreadWhenItGivesAPassBack(milliseconds: Int) {
        pauseMilliseconds.store(milliseconds, ordering: .relaxed)
        stage.store(PauseStage.none.rawValue, ordering: .relaxed)
        chosenThread.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .releasing)
    }

    /// Where the chosen thread is (`.none` until it pauses).
    static var pauseStage: PauseStage {
        PauseStage(rawValue: stage.load(ordering: .acquiring)) ?? .none
    }

    /// Called by a thread giving its pass back (see `KVOInfo.leavePass()`): pauses it if it is the chosen one.
    static func pauseIfChosen() {
        let chosen = chosenThread.load(ordering: .acquiring)
        guard chosen != 0, chosen == UInt(bitPattern: Int(bitPattern: pthread_self())) else { return }
        chosenThread.store(0, ordering: .relaxed)
        stage.store(PauseStage.paused.rawValue, ordering: .releasing)
        usleep(UInt32(pauseMilliseconds.load(ordering: .relaxed) * 1_000))
        stage.store(PauseStage.resumed.rawValue, ordering: .releasing)
    }
}
#endif
