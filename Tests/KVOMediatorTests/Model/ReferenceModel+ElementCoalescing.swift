import KVOMediator

/// What waits on the held lane for a coalescing element-wise registration, in order.
struct ModelElementsWaiting {
    struct Entry {
        var record: ModelRecord
        /// Whether later changes of its member merged into it.
        var merged = false
        /// Where its prior record waits, if it does.
        var prior: Int?
    }

    var entries: [Entry] = []
    /// Where each member's change record waits, since the last record that was not a member's change.
    var changes: [Int: Int] = [:]
    /// Where each member's prior record waits, before its change record comes.
    var priors: [Int: Int] = [:]
}

/// `KVOCoalescing.latest` for a registration of every element of a collection: a member's change merges
/// into the waiting record of the same member made since the last membership change (old from the first
/// change, new from the last, at its indexes, which stay the same until a membership change); a membership
/// change, a set of the whole collection and the `.initial` record never merge and keep their place; a
/// merged record's prior record is its first change's; with `.distinct`, a merged record whose values came
/// back to its old ones is not delivered, nor its prior record if that waited too; records carry what the
/// registration asked for.
extension ReferenceModel {
    /// A record of a coalescing element-wise registration, waiting on the lane: `member`'s change, or with
    /// no member, one of the collection.
    mutating func merge(_ record: ModelRecord, of member: Int?, into id: Int) {
        if lane.elements[id] == nil {
            lane.order.append(id)
            lane.elements[id] = ModelElementsWaiting()
        }
        var waiting = lane.elements[id]!
        defer { lane.elements[id] = waiting }
        guard let member else {
            waiting.changes = [:]
            waiting.priors = [:]
            waiting.entries.append(.init(record: record))
            return
        }
        if record.isPrior {
            guard waiting.changes[member] == nil, waiting.priors[member] == nil else { return }
            waiting.priors[member] = waiting.entries.count
            waiting.entries.append(.init(record: record))
        } else if let index = waiting.changes[member] {
            waiting.entries[index].record.new = record.new
            waiting.entries[index].merged = true
        } else {
            waiting.changes[member] = waiting.entries.count
            waiting.entries.append(.init(record: record, prior: waiting.priors.removeValue(forKey: member)))
        }
    }

    /// The lane runs what waits for the element-wise registration `id`, if it is still live and callable.
    mutating func deliverWaiting(_ waiting: ModelElementsWaiting, to id: Int) {
        guard let registration = registrations[id], isCallable(registration), let asked = registration.coalescing
        else { return }
        var dropped = Set<Int>()
        if asked.contains(.distinct) {
            for (index, entry) in waiting.entries.enumerated() where entry.merged {
                if asked.contains(.prior), entry.prior == nil { continue }  // its prior record went out: owed
                guard entry.record.old == entry.record.new else { continue }
                dropped.insert(index)
                if let prior = entry.prior { dropped.insert(prior) }
            }
        }
        for (index, entry) in waiting.entries.enumerated() where !dropped.contains(index) {
            step.expected[id, default: []].append(entry.record.carrying(asked))
        }
    }
}
