import Dispatch
import KVOMediator
import Synchronization

/// Waits until the deliveries queued so far have run: those to dispatch queues (`delivery: .queue(q)`,
/// with or without coalescing) and those to the main actor (`delivery: .mainActor`). A delivery's callback
/// that changes something and so queues another is waited for too, and so on, however long the chain, as
/// long as each callback makes its change synchronously, before it returns (a change made from work it
/// queues or hands to another thread, a `Task` say, is not followed). Deliveries that other threads queue
/// once the wait has begun, and the chains they begin, are not followed: each queue is waited for until it
/// has run what it held when the wait reached it. A queue that never runs (suspended, or the main actor
/// while the main thread is blocked) makes the wait time out.
///
/// ```swift
/// importer.progress = 1_000                   // delivered on `work`, later
/// try await settleKVODeliveries()
/// #expect(viewModel.progress == 1_000)
/// ```
///
/// It waits for the main actor only while KVOMediator's deliveries to it are queued (from any test of the
/// process): with none, a blocked main thread does not hold it up. Work that your own code queues to the
/// main queue or to other queues is not waited for.
///
/// Streams buffer their records instead of queueing them: read a stream, or record it with
/// ``KVORecorder/record(from:)``.
///
/// A chain that never ends (two objects whose callbacks set each other through queued deliveries, with no
/// end), or a delivery that a callback queues to a queue that stays suspended, holds up every later wait of
/// the process until its timeout, whichever test began it.
///
/// - Parameter timeout: How long to wait at most: ten seconds by default. A wait that succeeds returns as
///   soon as the deliveries have run, so the timeout only bounds a test that fails; a loaded CI machine or
///   a sanitizer build can take far longer than a second to run a queued delivery.
/// - Throws: ``KVOTestTimeout`` when they have not run in time (the main actor's cannot, while the main
///   thread is blocked).
public nonisolated(nonsending) func settleKVODeliveries(timeout: Duration = .seconds(10)) async throws {
    let deadline = ContinuousClock.now + timeout
    let epoch = _kvoBeginSettling()
    // Twice at least (a callback that ran in the first pass may have queued a delivery), then for as long as
    // callbacks of deliveries queued before the wait began have queued deliveries that have not run yet.
    var passes = 0
    while true {
        let outcome = await DeliveryQueues.settle(until: deadline)
        guard outcome == .settled else {
            throw KVOTestTimeout(expected: 0, received: 0, timeout: timeout, mainActorRan: outcome != .mainActorStuck)
        }
        passes += 1
        if passes >= 2, !_kvoCascadedDeliveriesQueued(through: epoch) { return }
        guard ContinuousClock.now < deadline else {
            throw KVOTestTimeout(expected: 0, received: 0, timeout: timeout, mainActorRan: true)
        }
        // (A pause, so that a long chain is not followed by passes in a busy loop; a cancelled wait ends.)
        if passes >= 2 { try await Task.sleep(for: .milliseconds(1)) }
    }
}

/// The queues that KVOMediator's deliveries wait on, and how to wait for them.
enum DeliveryQueues {
    /// How a wait for the queues ended.
    enum Outcome: Equatable {
        /// Every queue ran what it held.
        case settled
        /// The deadline came while a delivery queue was still busy.
        case outOfTime
        /// The deadline came while the main queue was waited for: the main actor is not running its jobs.
        case mainActorStuck
    }

    /// Waits, until `deadline`, for every queue with KVOMediator's deliveries and, when deliveries to the main
    /// actor are queued, for the main queue (the main actor's) to run what each holds now: all at once, so
    /// that a queue kept busy elsewhere does not hold up the wait for the others.
    static nonisolated(nonsending) func settle(until deadline: ContinuousClock.Instant) async -> Outcome {
        let queues = _kvoDeliveryQueues()
        let mainActorQueued = _kvoMainActorDeliveriesQueued()
        async let mainActorRan = mainActorQueued ? hop(through: DispatchQueue.main, until: deadline) : true
        let lanesRan = await withTaskGroup(of: Bool.self) { group in
            for queue in queues { group.addTask { await hop(through: queue, until: deadline) } }
            return await group.reduce(true) { $0 && $1 }
        }
        guard await mainActorRan else { return .mainActorStuck }
        return lanesRan ? .settled : .outOfTime
    }

    /// Whether the main actor runs what is queued to it within `time`.
    static nonisolated(nonsending) func mainActorResponds(within time: Duration) async -> Bool {
        await hop(through: DispatchQueue.main, until: ContinuousClock.now + time)
    }

    /// Waits until `queue` has run everything queued to it before this call, or until `deadline`; whether
    /// it did in time.
    static nonisolated(nonsending) func hop(
        through queue: DispatchQueue,
        until deadline: ContinuousClock.Instant
    ) async -> Bool {
        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else { return false }
        let once = Once()
        return await withCheckedContinuation { continuation in
            queue.async { if once.claim() { continuation.resume(returning: true) } }
            // (At most a day: a longer wait is no test's, and the count of nanoseconds then fits an `Int`.)
            let (seconds, attoseconds) = min(remaining, .seconds(86_400)).components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
                if once.claim() { continuation.resume(returning: false) }
            }
        }
    }
}

/// A flag that one of two racing callers claims.
private final class Once: Sendable {
    private let claimed = Atomic<Bool>(false)

    func claim() -> Bool {
        claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
