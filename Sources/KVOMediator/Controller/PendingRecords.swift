/// A registration's records waiting for their delivery, with `KVOCoalescing.latest`: the prior record of
/// the first change waiting (with `.prior`) and one change record into which later changes merge (see
/// `KVOCoalescing`). Records arrive from any thread that changes the object; the delivery takes them
/// where it runs.
final class PendingRecords<Value: Sendable>: @unchecked Sendable {  // the fields are guarded by `lock`
    private let lock = Lock()
    private var prior: KVOChange<Value>?
    private var change: KVOChange<Value>?
    /// Whether a prior record was taken without its change record (a delivery ran between the two): that
    /// change record is owed, and goes out whatever `.distinct` says of it.
    private var owesChange = false

    /// Adds a record; true when nothing was waiting, so that the caller schedules the delivery that
    /// takes it.
    func add(_ record: KVOChange<Value>) -> Bool {
        // (The value a merge replaces is released after unlocking: its deinit may be anyone's code.)
        var replaced: Value?
        let wasEmpty = lock.withLock {
            let wasEmpty = prior == nil && change == nil
            if record.isPrior {
                // The prior record goes with the first change only.
                if wasEmpty { prior = record }
            } else if change != nil {
                replaced = change!.newValue
                change!.newValue = record.newValue
            } else {
                change = record
            }
            return wasEmpty
        }
        withExtendedLifetime(replaced) {}
        return wasEmpty
    }

    /// Takes what is waiting, leaving nothing; `owed`: the change record answers a prior record delivered
    /// before it.
    func take() -> (prior: KVOChange<Value>?, change: KVOChange<Value>?, owed: Bool) {
        lock.withLock {
            defer { (prior, change) = (nil, nil) }
            var owed = false
            if change != nil {
                owed = owesChange && prior == nil
                owesChange = false
            } else if prior != nil {
                owesChange = true
            }
            return (prior, change, owed)
        }
    }
}

/// What a coalescing registration captures, and what it delivers of a merged record: its values are
/// captured whatever the options ask (to merge and compare them), and cut down to what they ask for.
struct MergedRecords<Value: Sendable>: @unchecked Sendable {  // immutable; `same` captures nothing that changes
    /// The options asked for.
    let options: KVOOptions
    /// The options the registration is made with: both values, always.
    var capturing: KVOOptions { options.capturingBothValues }
    /// `.distinct`'s test, for a merged record (each change was tested when it was made).
    private let same: _SameValues?

    init(options: KVOOptions) {
        self.options = options
        same = options.contains(.distinct) ? _DistinctValues.test(for: Value.self) : nil
    }

    /// The records to deliver for what was waiting, in order, each with the values asked for; nil when
    /// nothing is (a merged record that changed nothing, with `.distinct`, unless `owed`: its prior record
    /// went out already).
    func delivered(prior: KVOChange<Value>?, change: KVOChange<Value>?, owed: Bool) -> [KVOChange<Value>]? {
        if !owed, let change, let same, var old = change.oldValue, var new = change.newValue {
            let unchanged = _withUnprotectedUnsafePointer(to: &old) { old in
                _withUnprotectedUnsafePointer(to: &new) { new in
                    same(ValueAddress(old), ValueAddress(new), Value.self)
                }
            }
            if unchanged { return nil }
        }
        let records = [prior, change].compactMap { $0?.carrying(options) }
        return records.isEmpty ? nil : records
    }
}

extension KVOOptions {
    /// What a coalescing registration is made with, whatever was asked: both values, to merge and compare
    /// its records (each is cut down to what was asked with `KVOChange.carrying(_:)` when delivered).
    var capturingBothValues: KVOOptions { union([.old, .new]) }
}

extension KVOChange {
    /// This record with only the values `options` ask for (a prior record carries no new value).
    func carrying(_ options: KVOOptions) -> KVOChange {
        var record = self
        if !options.contains(.old) { record.oldValue = nil }
        if !options.contains(.new) || record.isPrior { record.newValue = nil }
        return record
    }
}
