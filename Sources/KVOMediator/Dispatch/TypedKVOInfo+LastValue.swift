/// The value a re-evaluating registration last delivered (or read when it started): the old value of its
/// next change, so that a change of a computed property is one evaluation, not an untracked read of the
/// old value before the set and a tracked read of the new one after it.
///
/// Kept for registrations that want old values (and no prior records, which are sent before the set),
/// of a type with no references (numbers, flags, structs of them: `_isPOD`), so that holding it keeps
/// no object alive; other values are read before each change. Used while the registration's last
/// evaluation found no chain (``LeafWord/noChain(shape:)``): every change of such a registration is
/// evaluated, so the value kept is the last one delivered. (A chain's leaf changes are delivered from
/// the setter's values, without an evaluation.)
///
/// Every change of such a registration takes its old value from here: a set of what it reads (copied
/// before the set where the slot has several registrations, whose callbacks may change it meanwhile),
/// a manual `willChangeValue(for:)` (copied then). One difference from Cocoa, which reads the old value
/// at `willChangeValueForKey:`: a change that was not announced (an input that is not observable,
/// changed in between) shows in the next record's new value, while its old value is the one observers
/// were last told.
///
/// It is the registration's `Extras`, with room for the value in it: one allocation, and not generic, so
/// that making one looks up no generic metadata. Values of up to `capacity` bytes are kept.
final class LastValue: KVOInfo.Extras {
    /// The value, of the registration's `Value` type (a `_isPOD` one, so nothing is retained or
    /// deinitialised here), in its first bytes. Guarded by the registration's striped lock (`prune`'s
    /// `underLock`), and reached only through `withValue`.
    @exclusivity(unchecked) private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// Whether `words` holds a value yet. Guarded by the striped lock.
    @exclusivity(unchecked) var isSet = false

    /// The most bytes a value kept here may take (its alignment must be at most 8).
    static var capacity: Int { 32 }

    init() {
        super.init(keepsValue: true)
    }

    /// Calls `body` with the value's memory (valid only during the call).
    func withValue<Result>(_ body: (UnsafeMutableRawPointer) -> Result) -> Result {
        withUnsafeMutableBytes(of: &words) { body($0.baseAddress!) }
    }
}

extension TypedKVOInfo {
    /// Whether a registration with `options` keeps its last value (its `Extras` is then a `LastValue`,
    /// made with it).
    static func keepsLastValue(options: KVOOptions) -> Bool {
        options.contains(.old) && !options.contains(.prior) && _isPOD(Value.self)
            && MemoryLayout<Value>.size <= LastValue.capacity && MemoryLayout<Value>.alignment <= 8
    }

    /// A copy of the value `last` keeps, taken under the striped lock; nil before the first evaluation.
    func keptValue(_ last: LastValue) -> Value? {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        defer { lock.unlock() }
        guard last.isSet else { return nil }
        return last.withValue { $0.assumingMemoryBound(to: Value.self).pointee }
    }

    /// The registration's `LastValue`, if it keeps one.
    var lastValue: LastValue? {
        guard let extras, extras.keepsValue else { return nil }
        return unsafeDowncast(extras, to: LastValue.self)
    }

    /// The registration's `LastValue`, while its last evaluation found no chain (see `LastValue`).
    var usableLastValue: LastValue? {
        foundNoChain ? lastValue : nil
    }

    /// The `LastValue` whose value is the old value of the change about to be made, if there is one:
    /// not inside a callback, nor between a `willChangeValue` and its `didChangeValue`, where the change
    /// may be nested in another change of this registration's inputs that is made but not yet evaluated
    /// (the kept value is then from before both). There the old value is read before the change, as for
    /// a value not kept, so that `.prior` (which keeps no value) changes no old value.
    var lastValueBeforeThisChange: LastValue? {
        guard let last = usableLastValue, !ThreadContext.mayBeNestedInAChange else { return nil }
        return last
    }

    /// After a change: re-reads the key path (refreshing dependencies) and delivers, with the old value
    /// at `old` (a `Value`), if captured.
    func reevaluate(old: UnsafeRawPointer?) {
        guard let object = loadTypedObject() else { return }
        reevaluate(object, old: old, keeping: lastValue, oldIsKept: false)
    }

    /// `reevaluate(old:)` with the object loaded. The new value replaces the one `last` keeps (when this
    /// evaluation is the newest); with `oldIsKept`, the kept one is the old value delivered.
    func reevaluate(_ object: Object, old: UnsafeRawPointer?, keeping last: LastValue?, oldIsKept: Bool) {
        let ticket = nextTicket()
        let tracker = AccessTracker.reused(subscribing: self)
        defer { tracker.recycle() }
        // A computed property's evaluation that reads what the last one read records nothing; one that
        // reads something else records the reads it matched and goes on (`AccessTracker+ExpectedReads`).
        let expecting = foundNoChain && tracker.expect(dependenciesOf: self)
        var newValue = tracker.run { evaluate(object, tracker) }
        // (No `Value?`: in this unspecialised code, an optional's tag is a call into its metadata.)
        var kept = newValue
        var isKept = false
        // (Closures, not a local function: one referenced as a value boxes what it captures.)
        let applied =
            expecting && tracker.readAllExpected
            && applySameReads(
                tracker.expected,
                count: tracker.expectedCount,
                since: tracker.expectedSince,
                ticket: ticket
            ) { applied in
                exchange(last, applied: applied, newValue: newValue, kept: &kept, isKept: &isKept)
                if applied { tracker.remember(appliedBy: Unmanaged.passUnretained(self).toOpaque(), ticket: ticket) }
            }
        if !applied {
            // Reads recorded from where matching ended; evaluated again only if the dependencies changed.
            if expecting, tracker.matched >= 0 { tracker.stopExpecting() }
            if tracker.mustEvaluateAgain {
                tracker.clear()
                newValue = tracker.run { evaluate(object, tracker) }
            }
            // (`prune` may subscribe to the root object's registrar, which the object keeps alive.)
            let accesses = tracker.accesses
            let leafKey = leafKey(of: accesses)
            withExtendedLifetime(object) {
                prune(keeping: accesses, ticket: ticket, leafKey: leafKey) { applied in
                    exchange(last, applied: applied, newValue: newValue, kept: &kept, isKept: &isKept)
                }
            }
        }
        // By address, as a set's values are: the record is built where the callback's types are
        // concrete, so nothing here looks up `KVOChange<Value>`'s or `Optional<Value>`'s metadata.
        withUnsafePointer(to: newValue) { new in
            if oldIsKept, isKept {
                withUnsafePointer(to: kept) { old in
                    deliver {
                        callDirect(object: object, oldValue: old, newValue: new, type: Value.self, isPrior: false)
                    }
                }
            } else {
                deliver { callDirect(object: object, oldValue: old, newValue: new, type: Value.self, isPrior: false) }
            }
        }
    }

    /// Under the striped lock: takes the value `last` keeps, if any, as the old one, and keeps `newValue`
    /// in its place when the evaluation was `applied` (the newest).
    private func exchange(
        _ last: LastValue?,
        applied: Bool,
        newValue: Value,
        kept: inout Value,
        isKept: inout Bool
    ) {
        guard let last else { return }
        last.withValue { stored in
            if last.isSet { (kept, isKept) = (stored.assumingMemoryBound(to: Value.self).pointee, true) }
            // (A trivial value: storing over the old one, or into fresh memory, is a copy of bytes.)
            if applied { stored.initializeMemory(as: Value.self, to: newValue) }
        }
        if applied { last.isSet = true }
    }
}
