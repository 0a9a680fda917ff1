import Dispatch

/// Where a `delivery:` form's callbacks go: the form it is registered as, and the hop that moves each
/// delivery there (a queue's serial lane, or this controller's main-actor lane).
struct DeliveryRoute: Sendable {
    let form: _RegistrationForm
    let hop: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// `delivery: .queue(q)`, with or without coalescing.
    init(_ delivery: KVOQueueDelivery) {
        let lane = DeliveryLane.lane(to: delivery.queue)
        form = delivery.coalescing == nil ? .queue : .queueCoalescing
        hop = { job in
            let note = CascadedDeliveries.willQueue()
            // (The lane kept until the job has run, so that the test kit's wait finds it in the table.)
            lane.queue.async { withExtendedLifetime(lane) { CascadedDeliveries.run(note, job) } }
        }
    }

    /// `delivery: .mainActor`, with or without coalescing, on `lane` (a controller's).
    init(_ delivery: KVOMainActorDelivery, lane: MainActorLane) {
        form = delivery.coalescing == nil ? .mainActor : .mainActorCoalescing
        hop = { job in lane.deliver { job() } }
    }
}
