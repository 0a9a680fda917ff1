import Foundation
import Synchronization

/// The one serial lane from KVOMediator to a dispatch queue: every registration delivering to that
/// queue enqueues on it, so deliveries run one at a time and in the order of the changes, across
/// registrations and controllers (one serial queue per registration would keep each registration's
/// order only: two of them targeting one serial queue interleave in batches).
final class DeliveryLane: Sendable {
    /// Serial, targeting the user's queue (which it retains, so that queue's address stays its own).
    let queue: DispatchQueue
    private let targetID: ObjectIdentifier

    private init(target: DispatchQueue) {
        self.queue = DispatchQueue(label: "KVOMediator.delivery", target: target)
        self.targetID = ObjectIdentifier(target)
    }

    deinit {
        let id = targetID
        Self.lock.withLock {
            if Self.lanes[id]?.lane == nil { Self.lanes[id] = nil }
        }
    }

    /// A lane lives as long as a registration holds it: the table holds it weakly.
    private struct WeakLane {
        weak var lane: DeliveryLane?
    }

    /// Lanes by target queue. (Taken when a queue-delivering registration is made or its lane ends;
    /// never on a notification.)
    private static let lock = Lock()
    nonisolated(unsafe) private static var lanes: [ObjectIdentifier: WeakLane] = [:]  // guarded by `lock`

    /// The serial queues of the lanes that live now (see `_kvoDeliveryQueues()`).
    static var liveQueues: [DispatchQueue] {
        // (The lanes are released after unlocking: the last release of one runs its deinit, which locks.)
        let live = lock.withLock { lanes.values.compactMap(\.lane) }
        return live.map(\.queue)
    }

    /// The lane to `target`, shared with every other registration delivering there.
    static func lane(to target: DispatchQueue) -> DeliveryLane {
        let id = ObjectIdentifier(target)
        return lock.withLock {
            if let lane = lanes[id]?.lane { return lane }
            let lane = DeliveryLane(target: target)
            lanes[id] = WeakLane(lane: lane)
            return lane
        }
    }
}

/// The queues that queue deliveries (`delivery: .queue(q)`) wait on now: one per target queue, each
/// serial. For the package's test kit (`KVOMediatorTesting`), which hops through each to let what waits run.
package func _kvoDeliveryQueues() -> [DispatchQueue] {
    DeliveryLane.liveQueues
}

/// Begins a wait of the test kit (`settleKVODeliveries()`): returns the last epoch it follows (see
/// `CascadedDeliveries`).
package func _kvoBeginSettling() -> UInt32 {
    CascadedDeliveries.beginWait()
}

/// The epoch now: for the test kit's own tests, to tell when a wait has begun (each begins a new one).
package func _kvoSettlingEpoch() -> UInt32 {
    CascadedDeliveries.currentEpoch
}

/// Whether deliveries that other deliveries' callbacks queued (a change they made), in chains begun by
/// deliveries queued at epoch `last` or before, are waiting to run: what the test kit's wait follows from
/// one round of waiting to the next.
package func _kvoCascadedDeliveriesQueued(through last: UInt32) -> Bool {
    CascadedDeliveries.waiting(through: last)
}

/// The deliveries queued, to a queue or the main actor, by a thread that is itself running a queued
/// delivery: a callback's change that queues another delivery. Counted until they run, so that the test
/// kit's wait (`settleKVODeliveries()`) follows a chain of them to its end, however long.
///
/// Each delivery is of an epoch: one queued by a thread that runs no queued delivery is of the epoch now,
/// and the deliveries its callbacks queue, and theirs, are of the same. Each wait begins a new epoch and
/// follows the chains of the epochs before it only, so that chains begun by other threads (other tests)
/// while it waits do not hold it up.
@usableFromInline
enum CascadedDeliveries {
    /// What `willQueue` says of a delivery, for `run`: its epoch, and whether it is counted.
    @usableFromInline
    struct Note: Sendable {
        let epoch: UInt32
        let cascade: Bool
    }

    private static let epoch = Atomic<UInt32>(1)
    private static let lock = Lock()
    /// The cascades queued and not yet run, by epoch (none listed with no cascade).
    nonisolated(unsafe) private static var queued: [UInt32: Int] = [:]  // guarded by `lock`

    static var currentEpoch: UInt32 {
        epoch.load(ordering: .relaxed)
    }

    static func beginWait() -> UInt32 {
        epoch.wrappingAdd(1, ordering: .relaxed).oldValue
    }

    static func waiting(through last: UInt32) -> Bool {
        lock.withLock { queued.keys.contains { $0 <= last } }
    }

    /// Notes a delivery about to be queued (counted, if it is a cascade, until `run` has run it).
    @usableFromInline
    static func willQueue() -> Note {
        let running = ThreadContext.withCurrent { $0.queuedDeliveryEpoch }
        guard running != 0 else { return Note(epoch: epoch.load(ordering: .relaxed), cascade: false) }
        lock.withLock { queued[running, default: 0] += 1 }
        return Note(epoch: running, cascade: true)
    }

    /// Runs a queued delivery, with this thread marked as running one of `note`'s epoch meanwhile.
    @usableFromInline
    static func run(_ note: Note, _ job: () -> Void) {
        let outer = ThreadContext.withCurrent { context in
            defer { context.queuedDeliveryEpoch = note.epoch }
            return context.queuedDeliveryEpoch
        }
        job()
        ThreadContext.withCurrent { $0.queuedDeliveryEpoch = outer }
        guard note.cascade else { return }
        lock.withLock {
            let left = queued[note.epoch, default: 1] - 1
            queued[note.epoch] = left > 0 ? left : nil
        }
    }
}

/// Whether deliveries to the main actor (`delivery: .mainActor`, coalescing or not) are queued and have not
/// run yet: what the test kit's wait waits on the main actor for.
package func _kvoMainActorDeliveriesQueued() -> Bool {
    MainActorLane.queuedEverywhere.load(ordering: .acquiring) > 0
}

/// One controller's main-actor deliveries: synchronous when a change is made on the main actor and
/// none of them is queued, queued to the main queue otherwise, so that they keep the order of the
/// changes across the controller's registrations (and the main queue keeps it across controllers for
/// changes made on other threads).
@usableFromInline
final class MainActorLane: Sendable {
    /// This controller's deliveries queued to the main actor and not yet run.
    private let queued = Atomic<Int>(0)
    /// Deliveries run from the main queue so far: what tells a main loop that runs from one that does not.
    private static let ran = Atomic<Int>(0)
    /// Every controller's deliveries queued to the main actor and not yet run (see
    /// `_kvoMainActorDeliveriesQueued()`).
    static let queuedEverywhere = Atomic<Int>(0)
    /// Set once a watch for a stalled main loop is scheduled or has reported (it reports once).
    private static let watching = Atomic<Bool>(false)

    /// Runs `body` on the main actor, now if possible, in order with this lane's other deliveries.
    func deliver(_ body: @escaping @Sendable @MainActor () -> Void) {
        if isOnMainActor(), queued.load(ordering: .acquiring) == 0 {
            MainActor.assumeIsolated { body() }
            return
        }
        queued.wrappingAdd(1, ordering: .acquiringAndReleasing)
        Self.queuedEverywhere.wrappingAdd(1, ordering: .relaxed)
        DispatchQueue.main.async {
            MainActor.assumeIsolated { body() }
            Self.ran.wrappingAdd(1, ordering: .relaxed)
            self.queued.wrappingSubtract(1, ordering: .acquiringAndReleasing)
            Self.queuedEverywhere.wrappingSubtract(1, ordering: .releasing)
        }
        Self.watchForStalledMainLoop()
    }

    /// Reports once, on standard error, when queued deliveries have not run for five seconds: in a
    /// command-line tool that means the main thread is not running its main loop.
    private static func watchForStalledMainLoop() {
        guard !watching.load(ordering: .relaxed),
            watching.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
        else { return }
        let ranBefore = ran.load(ordering: .relaxed)
        DispatchQueue.global().asyncAfter(deadline: .now() + 5) {
            if ran.load(ordering: .relaxed) == ranBefore {
                writeToStandardError(stalledMainLoopMessage)
            } else {
                watching.store(false, ordering: .relaxed)
            }
        }
    }

    static let stalledMainLoopMessage =
        "KVOMediator: main-actor deliveries (delivery: .mainActor) have waited 5 s without running: the main "
        + "thread is not running its main loop. In a command-line tool call dispatchMain() or RunLoop.main.run(), "
        + "or use an async main, instead of blocking the main thread; or deliver synchronously (no delivery:) "
        + "or on a queue (delivery: .queue(q))."
}

/// Marks the main dispatch queue, which runs the main actor's jobs.
private let mainQueueKey: DispatchSpecificKey<UInt8> = {
    let key = DispatchSpecificKey<UInt8>()
    DispatchQueue.main.setSpecific(key: key, value: 1)
    return key
}()

/// Whether the caller runs on the main actor: on the main thread, or in a job of the main queue (where
/// a test runner may run main-actor work on another thread).
func isOnMainActor() -> Bool {
    Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) != nil
}
