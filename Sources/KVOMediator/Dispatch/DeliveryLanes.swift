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
        queue.setSpecific(key: laneKey, value: 1)
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

/// Whether deliveries that other deliveries' callbacks queued (a change they made) are waiting to run:
/// what the test kit's wait follows from one round of waiting to the next.
package func _kvoCascadedDeliveriesQueued() -> Bool {
    CascadedDeliveries.waiting
}

/// The deliveries queued, to a queue or the main actor, by a thread that was itself running a queued
/// delivery: a callback's change that queues another delivery. Counted until they run, so that the test
/// kit's wait (`settleKVODeliveries()`) follows a chain of them to its end, however long, and is not held
/// up by deliveries that other threads keep queueing.
enum CascadedDeliveries {
    private static let queued = Atomic<Int>(0)

    static var waiting: Bool {
        queued.load(ordering: .acquiring) > 0
    }

    /// Notes a delivery about to be queued: whether it is a cascade (queued by a delivery that runs on a
    /// lane, or on the main actor from its queue), to pass to `run(cascade:_:)`.
    static func willQueue() -> Bool {
        guard ThreadContext.currentSays({ $0.runsQueuedDelivery }) || DispatchQueue.getSpecific(key: laneKey) != nil
        else { return false }
        queued.wrappingAdd(1, ordering: .relaxed)
        return true
    }

    /// Runs a queued delivery, with this thread marked as running one meanwhile (a lane's jobs are told by
    /// their queue instead, so that only cascades need this).
    static func run(cascade: Bool, _ job: () -> Void) {
        let wasRunning = ThreadContext.withCurrent { context in
            defer { context.runsQueuedDelivery = true }
            return context.runsQueuedDelivery
        }
        job()
        ThreadContext.withCurrent { $0.runsQueuedDelivery = wasRunning }
        if cascade { queued.wrappingSubtract(1, ordering: .releasing) }
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
        let cascade = CascadedDeliveries.willQueue()
        DispatchQueue.main.async {
            CascadedDeliveries.run(cascade: cascade) { MainActor.assumeIsolated { body() } }
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

/// Marks the lanes' queues (`DeliveryLane`): a job running on one is a queued delivery.
private let laneKey = DispatchSpecificKey<UInt8>()

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
