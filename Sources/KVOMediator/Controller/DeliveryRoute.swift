import Dispatch

/// Where a `delivery:` form's callbacks go: the form it is registered as, and the hop that moves each
/// delivery there (a queue's serial lane, or this controller's main-actor lane). Each job a caller hops
/// runs its delivery inside `CascadedDeliveries.run`, with the note it took just before (in the job's own
/// closure: a closure around it here cost an allocation per delivery).
@usableFromInline
struct DeliveryRoute: Sendable {
    @usableFromInline
    let form: _RegistrationForm
    @usableFromInline
    let hop: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// `delivery: .queue(q)`, with or without coalescing.
    @usableFromInline
    init(_ delivery: KVOQueueDelivery) {
        let lane = DeliveryLane.lane(to: delivery.queue)
        form = delivery.coalescing == nil ? .queue : .queueCoalescing
        hop = { lane.queue.async(execute: $0) }
    }

    /// `delivery: .mainActor`, with or without coalescing, on `lane` (a controller's).
    @usableFromInline
    init(_ delivery: KVOMainActorDelivery, lane: MainActorLane) {
        form = delivery.coalescing == nil ? .mainActor : .mainActorCoalescing
        hop = { job in lane.deliver { job() } }
    }
}
