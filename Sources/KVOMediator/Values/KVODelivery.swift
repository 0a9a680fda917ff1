import Foundation

/// Delivery on the main actor, named at the call site: `delivery: .mainActor`.
///
/// Trailing-closure syntax drops a closure's label, so delivery is never chosen by a closure's shape:
/// a form without `delivery:` always calls back synchronously on the thread that made the change.
public struct KVOMainActorDelivery: Sendable {
    /// Calls back on the main actor.
    public static var mainActor: KVOMainActorDelivery { KVOMainActorDelivery() }
}

/// Delivery on a dispatch queue, named at the call site: `delivery: .queue(renderQueue)`.
public struct KVOQueueDelivery: Sendable {
    /// Where the callbacks run.
    public let queue: DispatchQueue

    /// Calls back on `queue`, in the order of the changes.
    public static func queue(_ queue: DispatchQueue) -> KVOQueueDelivery {
        KVOQueueDelivery(queue: queue)
    }
}
