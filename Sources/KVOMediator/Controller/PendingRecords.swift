/// A registration's records waiting for their delivery, with `KVOCoalescing.latest`: the prior record of
/// the first change waiting (with `.prior`) and one change record into which later changes merge (see
/// `KVOCoalescing`). Records arrive from any thread that changes the object; the delivery takes them
/// where it runs.
final class PendingRecords<Value>: @unchecked Sendable {  // `prior` and `change` are guarded by `lock`
    private let lock = Lock()
    private var prior: KVOChange<Value>?
    private var change: KVOChange<Value>?

    /// Adds a record; true when nothing was waiting, so that the caller schedules the delivery that
    /// takes it.
    func add(_ record: KVOChange<Value>) -> Bool {
        lock.withLock {
            let wasEmpty = prior == nil && change == nil
            if record.isPrior {
                // The prior record goes with the first change only.
                if wasEmpty { prior = record }
            } else if change != nil {
                change!.newValue = record.newValue
            } else {
                change = record
            }
            return wasEmpty
        }
    }

    /// Takes what is waiting, leaving nothing.
    func take() -> (prior: KVOChange<Value>?, change: KVOChange<Value>?) {
        lock.withLock {
            defer { (prior, change) = (nil, nil) }
            return (prior, change)
        }
    }
}

/// What a coalescing registration captures, and what it delivers of a merged record: its values are
/// captured whatever the options ask (to merge and compare them), and cut down to what they ask for.
struct MergedRecords<Value>: @unchecked Sendable {  // immutable; `same` captures nothing that changes
    /// The options asked for.
    let options: KVOOptions
    /// The options the registration is made with: both values, always.
    var capturing: KVOOptions { options.union([.old, .new]) }
    /// `.distinct`'s test, for a merged record (each change was tested when it was made).
    private let same: _SameValues?

    init(options: KVOOptions) {
        self.options = options
        same = options.contains(.distinct) ? _DistinctValues.test(for: Value.self) : nil
    }

    /// The records to deliver for what was waiting, in order, each with the values asked for; nil when
    /// nothing is (a merged record that changed nothing, with `.distinct`).
    func delivered(prior: KVOChange<Value>?, change: KVOChange<Value>?) -> [KVOChange<Value>]? {
        if let change, let same, !change.isPrior, var old = change.oldValue, var new = change.newValue {
            let unchanged = withUnsafePointer(to: &old) { old in
                withUnsafePointer(to: &new) { new in same(ValueAddress(old), ValueAddress(new), Value.self) }
            }
            if unchanged { return nil }
        }
        let records = [prior, change].compactMap { $0.map(cut) }
        return records.isEmpty ? nil : records
    }

    /// `record` with the values `options` ask for.
    private func cut(_ record: KVOChange<Value>) -> KVOChange<Value> {
        var record = record
        if !options.contains(.old) { record.oldValue = nil }
        if !options.contains(.new) || record.isPrior { record.newValue = nil }
        return record
    }
}
