import Foundation

/// Delivery on the main actor, named at the call site: `delivery: .mainActor`, or
/// `delivery: .mainActor(coalescing: .latest)`.
///
/// Trailing-closure syntax drops a closure's label, so delivery is never chosen by a closure's shape:
/// a form without `delivery:` always calls back synchronously on the thread that made the change.
public struct KVOMainActorDelivery: Sendable {
    /// What a delivery waiting to run does with newer changes; nil: each change is delivered.
    public let coalescing: KVOCoalescing?

    /// Calls back on the main actor, once for each change.
    public static var mainActor: KVOMainActorDelivery { KVOMainActorDelivery(coalescing: nil) }

    /// Calls back on the main actor, merging the changes made while a delivery waits to run into it.
    ///
    /// ```swift
    /// kvoController.observe(importer, keyPath: \.progress, options: [.old, .new],
    ///                       delivery: .mainActor(coalescing: .latest)) { viewModel, change in
    ///     viewModel.progress = change.newValue!   // once per main-loop turn, not once per row
    /// }
    /// ```
    public static func mainActor(coalescing: KVOCoalescing) -> KVOMainActorDelivery {
        KVOMainActorDelivery(coalescing: coalescing)
    }
}

/// Delivery on a dispatch queue, named at the call site: `delivery: .queue(renderQueue)`, or
/// `delivery: .queue(renderQueue, coalescing: .latest)`.
public struct KVOQueueDelivery: Sendable {
    /// Where the callbacks run.
    public let queue: DispatchQueue
    /// What a delivery waiting to run does with newer changes; nil: each change is delivered.
    public let coalescing: KVOCoalescing?

    /// Calls back on `queue`, in the order of the changes, once for each change.
    ///
    /// Deliveries keep their order among themselves, not with the blocks you queue to `queue` yourself:
    /// they wait in one serial queue of the library's that targets `queue`, and while earlier deliveries
    /// wait there, a new one joins them, so it can run before a block you queued before its change.
    public static func queue(_ queue: DispatchQueue) -> KVOQueueDelivery {
        KVOQueueDelivery(queue: queue, coalescing: nil)
    }

    /// Calls back on `queue`, merging the changes made while a delivery waits to run into it.
    public static func queue(_ queue: DispatchQueue, coalescing: KVOCoalescing) -> KVOQueueDelivery {
        KVOQueueDelivery(queue: queue, coalescing: coalescing)
    }
}

/// What an asynchronous delivery does with the changes made while one of its deliveries waits to run:
/// for a thread that changes a property far more often than its observer's queue or main loop can
/// show it (an import, a download, a simulation).
///
/// With `.latest`, a registration has at most one delivery waiting. A change made while it waits is
/// merged into it: one record whose old value is the one before the first of those changes and whose
/// new value is the one after the last (the record carries them as `options` ask). So the callback
/// runs once, with where the value started and where it ended, however many changes there were. The
/// rules:
/// - The waiting delivery keeps its place among the lane's deliveries: order across registrations
///   delivering to one queue (or a controller's main-actor deliveries) is kept as without coalescing,
///   by the first change of each merged record.
/// - A collection is delivered as a `.setting` of its whole old and new values, as a value stream
///   receives it (merged mutations have no one set of indexes), and so `.distinct` compares it whole.
/// - With `.prior`, the prior record of the first change goes just before the merged record (or, if
///   that delivery ran between the two, on its own, and then its change record goes out whatever
///   `.distinct` says of it).
/// - An `.initial` record still waiting when changes come takes the newest value (it stays an initial
///   record: no old value).
/// - With `.distinct`, a merged record whose new value is its old one (0 → 1 → 0) is not delivered.
/// - A delivery made on the main actor while nothing of its controller is queued runs at once, as
///   without coalescing: there is nothing to merge it with.
/// - Records merge in the order they reach the registration. Threads that change one object without
///   taking turns (a data race on the property) can reach it in another order than their stores.
public enum KVOCoalescing: Sendable, Hashable {
    /// One delivery waits at most; newer changes merge into it.
    case latest
}
