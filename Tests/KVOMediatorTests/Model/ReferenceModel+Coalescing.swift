import KVOMediator

/// What waits on the world's held lane: for each coalescing registration with a delivery waiting, the
/// prior record of its first change (with `.prior`) and one change record into which later ones merge.
struct ModelLaneState {
    var waiting: [Int: (prior: ModelRecord?, change: ModelRecord?)] = [:]
    /// For each coalescing element-wise registration with a delivery waiting, what waits
    /// (`ReferenceModel+ElementCoalescing`).
    var elements: [Int: ModelElementsWaiting] = [:]
    /// The registrations waiting, in the order their deliveries were queued.
    var order: [Int] = []
}

/// `KVOCoalescing.latest`'s rules: a registration has one delivery waiting at most; a change made while it
/// waits merges into it (old from the first change, new from the last), and the waiting delivery keeps
/// its place on the lane; with `.prior`, the first change's prior record goes just before it; with
/// `.distinct`, a merged record that ends where it started is not delivered; records carry what the
/// registration asked for. Collections come whole (`ModelRegistration.getsCollectionKinds`).
extension ReferenceModel {
    /// A record of a coalescing registration, waiting on the lane.
    mutating func merge(_ record: ModelRecord, into id: Int) {
        guard var waiting = lane.waiting[id] else {
            lane.order.append(id)
            lane.waiting[id] = record.isPrior ? (record, nil) : (nil, record)
            return
        }
        if record.isPrior { return }
        if var change = waiting.change {
            change.new = record.new
            waiting.change = change
        } else {
            waiting.change = record
        }
        lane.waiting[id] = waiting
    }

    /// The lane runs: each waiting delivery, in order, to its registration if it is still live and
    /// callable.
    mutating func runLane() {
        let lane = self.lane
        self.lane = ModelLaneState()
        for id in lane.order {
            if let elements = lane.elements[id] {
                deliverWaiting(elements, to: id)
                continue
            }
            guard let registration = registrations[id], isCallable(registration),
                let asked = registration.coalescing, let waiting = lane.waiting[id]
            else { continue }
            if let change = waiting.change, asked.contains(.distinct), let old = change.old, old == change.new {
                continue
            }
            for record in [waiting.prior, waiting.change].compactMap({ $0 }) {
                step.expected[id, default: []].append(record.carrying(asked))
            }
        }
    }
}

extension ModelRecord {
    /// The record a coalescing registration delivers, which captured both values: with the values it
    /// asked for (a prior record has no new value).
    func carrying(_ asked: KVOOptions) -> ModelRecord {
        var delivered = self
        if !asked.contains(.old) { delivered.old = nil }
        if !asked.contains(.new) || isPrior { delivered.new = nil }
        return delivered
    }
}
