import Synchronization

/// What the synchronous callbacks keep count of, on the model queue; the dashboard reads it on the main actor.
///
/// Synchronous callbacks (block, action, keyPaths, string key path, token) run on the thread that made
/// the change, so what they write must be thread-safe; main-actor state is for main-actor deliveries.
final class TransferTally: Sendable {
    /// The counts at one moment.
    struct Counts: Sendable {
        /// Bytes received by every download so far (block, on `receivedBytes`).
        var receivedBytes = 0
        /// Downloads transferring now (action, on the computed `activeCount`).
        var active = 0
        /// Downloads finished and cancelled so far (keyPaths, on `finishedCount` and `cancelledCount`).
        var finished = 0
        var cancelled = 0
        /// The name of the last download to finish (string key path `"lastFinished.name"`).
        var lastFinished: String?
        /// The network's speed (keyPaths, on `speed`).
        var speed = 1.0
        /// How many times the token on `overallProgress` was called: as many values as its stream gives.
        var tokenChanges = 0
    }

    private let counts = Mutex(Counts())

    /// The counts now.
    var current: Counts {
        counts.withLock { $0 }
    }

    /// Changes the counts.
    func update(_ body: (inout Counts) -> Void) {
        counts.withLock { body(&$0) }
    }
}
