/// An element-wise registration's records waiting for their delivery, with `KVOCoalescing.latest`.
///
/// A change of an element merges into the waiting record of the same element made since the last
/// record that was not an element's change (old values from the first, new from the last): between
/// membership changes an element's indexes stay what they were, so the merged record's are exact. A
/// membership change, a set of the whole collection and an `.initial` record never merge and keep their
/// place; the element changes after one merge among themselves again. Records arrive from any thread
/// that changes the collection or an element; the delivery takes them where it runs.
final class PendingElementRecords<Value: Sendable>: @unchecked Sendable {  // the fields are guarded by `lock`
    /// A record waiting, and what merging did to it.
    private struct Waiting {
        var record: KVOChange<[Value]>
        /// Whether later changes merged into it (only a merged record can have come back to its old values).
        var merged = false
        /// Where its prior record waits, if it does (taken together, they go out or are dropped together).
        var prior: Int?
    }

    private let lock = Lock()
    private var waiting: [Waiting] = []
    /// Where each member's change record waits, since the last record that was not an element's change.
    private var changes: [ObjectIdentifier: Int] = [:]
    /// Where each member's prior record waits, before its change record comes.
    private var priors: [ObjectIdentifier: Int] = [:]
    /// The options asked for: each record is cut down to them when it is taken.
    private let options: KVOOptions
    /// `.distinct`'s test of one value, for a merged record (each change was tested when it was made).
    private let same: _SameValues?

    init(options: KVOOptions, same: _SameValues?) {
        self.options = options
        self.same = options.contains(.distinct) ? same : nil
    }

    /// Adds a record: the record of `member`'s change, or with no member, one of the collection (or the
    /// initial one). True when nothing was waiting, so that the caller schedules the delivery that takes it.
    func add(_ record: KVOChange<[Value]>, member: ObjectIdentifier?) -> Bool {
        // (The values a merge replaces are released after unlocking: their deinit may be anyone's code.)
        var replaced: [Value]?
        let wasEmpty = lock.withLock {
            let wasEmpty = waiting.isEmpty
            guard let member else {
                changes = [:]
                priors = [:]
                waiting.append(Waiting(record: record))
                return wasEmpty
            }
            if record.isPrior {
                // A merged record's prior is its first change's.
                if changes[member] == nil, priors[member] == nil {
                    priors[member] = waiting.count
                    waiting.append(Waiting(record: record))
                }
            } else if let index = changes[member] {
                replaced = waiting[index].record.newValue
                waiting[index].record.newValue = record.newValue
                waiting[index].merged = true
            } else {
                changes[member] = waiting.count
                waiting.append(Waiting(record: record, prior: priors.removeValue(forKey: member)))
            }
            return wasEmpty
        }
        withExtendedLifetime(replaced) {}
        return wasEmpty
    }

    /// Takes what is waiting, in order, each record cut down to the values asked for, leaving nothing.
    /// With `.distinct`, a merged record whose every value came back to its old one is not among them, nor
    /// its prior record if that waited too (a prior record delivered already is answered whatever the
    /// values: its change record is owed).
    func take() -> [KVOChange<[Value]>] {
        let taken = lock.withLock {
            defer {
                waiting = []
                changes = [:]
                priors = [:]
            }
            return waiting
        }
        var dropped = Set<Int>()
        if let same {
            for (index, entry) in taken.enumerated() where entry.merged {
                guard options.contains(.prior) ? entry.prior != nil : true else { continue }
                guard let old = entry.record.oldValue, let new = entry.record.newValue else { continue }
                guard Self.allSame(old, new, same) else { continue }
                dropped.insert(index)
                if let prior = entry.prior { dropped.insert(prior) }
            }
        }
        var records: [KVOChange<[Value]>] = []
        records.reserveCapacity(taken.count - dropped.count)
        for (index, entry) in taken.enumerated() where !dropped.contains(index) {
            records.append(entry.record.carrying(options))
        }
        return records
    }

    /// Whether each value of `new` is the one at its place in `old` (an element held at several indexes
    /// has one value for each).
    private static func allSame(_ old: [Value], _ new: [Value], _ same: _SameValues) -> Bool {
        guard old.count == new.count else { return false }
        for index in old.indices {
            let equal = _withValuePointer(to: old[index]) { old in
                _withValuePointer(to: new[index]) { new in
                    same(ValueAddress(old), ValueAddress(new), Value.self)
                }
            }
            if !equal { return false }
        }
        return true
    }
}
