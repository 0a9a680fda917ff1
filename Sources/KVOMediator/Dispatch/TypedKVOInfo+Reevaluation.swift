/// Re-evaluation: after a change of what a registration reads (a computed property, a chain whose
/// link changed, a key path read by name), its key path is read again under tracking, its
/// dependencies brought to what that read, and the change delivered with the old value it had.
extension TypedKVOInfo {
    /// After a change: re-reads the key path (refreshing dependencies) and delivers, with the old value
    /// at `old` (a `Value`), if captured.
    func reevaluate(old: ValueAddress?) {
        guard let object = loadTypedObject() else { return }
        reevaluate(object, old: old, keeping: lastValue, oldIsKept: false)
    }

    /// `reevaluate(old:)` with the object loaded. The new value replaces the one `last` keeps (when this
    /// evaluation is the newest); with `oldIsKept`, the kept one is the old value delivered.
    /// With `priorFirst` (a transaction's end), the prior record goes right before the change record, and
    /// neither when `.distinct` finds the value unchanged.
    ///
    /// A value of a small trivial type is held as its bytes throughout (`TrivialValueBytes`): this code is
    /// generic over `Value` and runs unspecialised, where each copy of a `Value` is a call through its
    /// metadata; the bytes are copied as words.
    func reevaluate(
        _ object: Object,
        old: ValueAddress?,
        keeping last: Unretained<Extras>?,
        oldIsKept: Bool,
        priorFirst: Bool = false
    ) {
        guard TrivialValueBytes.fits(Value.self) else {
            return reevaluateValue(object, old: old, keeping: last, oldIsKept: oldIsKept, priorFirst: priorFirst)
        }
        reevaluate(object, old: old, keeping: last, oldIsKept: oldIsKept, priorFirst: priorFirst) {
            evaluateBytes($0, $1)
        } exchanging: {
            $0.lastValue.exchange(applied: $1, newValue: $2, kept: &$3, isKept: &$4)
        }
    }

    /// `reevaluate(_:old:keeping:oldIsKept:priorFirst:)` holding the value as a `Value`. (Out of line: its
    /// room for values of the generic type is then made only when it runs.)
    @inline(never)
    private func reevaluateValue(
        _ object: Object,
        old: ValueAddress?,
        keeping last: Unretained<Extras>?,
        oldIsKept: Bool,
        priorFirst: Bool
    ) {
        reevaluate(object, old: old, keeping: last, oldIsKept: oldIsKept, priorFirst: priorFirst) {
            evaluate($0, $1)
        } exchanging: {
            $0.lastValue.exchange(applied: $1, newValue: $2, kept: &$3, isKept: &$4)
        }
    }

    /// `reevaluate(_:old:keeping:oldIsKept:priorFirst:)` with the value held as a `Held` (the `Value`, or
    /// its bytes): `evaluate` reads it under tracking; `exchange`, under the striped lock, takes the value
    /// `last` keeps into `kept` (saying so in `isKept`) and keeps the new one in its place if `applied`.
    @inline(__always)
    private func reevaluate<Held>(
        _ object: Object,
        old: ValueAddress?,
        keeping last: Unretained<Extras>?,
        oldIsKept: Bool,
        priorFirst: Bool,
        evaluating evaluate: (Object, AccessTracker) -> Held,
        exchanging exchange: (Extras, _ applied: Bool, _ newValue: Held, _ kept: inout Held, _ isKept: inout Bool) ->
            Void
    ) {
        let ticket = nextTicket()
        let tracker = AccessTracker.reused(subscribing: self)
        // A computed property's evaluation that reads what the last one read records nothing; one that
        // reads something else records the reads it matched and goes on (`AccessTracker+ExpectedReads`).
        let expecting = foundNoChain && tracker.expect(dependenciesOf: self)
        var newValue = tracker.run { evaluate(object, tracker) }
        // (No `Held?`: in unspecialised code, an optional's tag is a call into its metadata.)
        var kept = newValue
        var isKept = false
        // (Closures, not a local function: one referenced as a value boxes what it captures.)
        let applied =
            expecting && tracker.readAllExpected
            && applySameReads(of: tracker, ticket: ticket) { applied in
                last?.with { exchange($0, applied, newValue, &kept, &isKept) }
                if applied { tracker.remember(appliedBy: ObjectIdentifier(self), ticket: ticket) }
            }
        if !applied {
            // Reads recorded from where matching ended; evaluated again only if the dependencies changed.
            if expecting, tracker.isMatching { tracker.stopExpecting() }
            if tracker.mustEvaluateAgain {
                tracker.clear()
                newValue = tracker.run { evaluate(object, tracker) }
            }
            // (`prune` may subscribe to the root object's registrar, which the object keeps alive.)
            let accesses = tracker.accesses
            let leafKey = leafKey(of: accesses)
            withExtendedLifetime(object) {
                prune(keeping: accesses, ticket: ticket, leafKey: leafKey) { applied in
                    last?.with { exchange($0, applied, newValue, &kept, &isKept) }
                }
            }
        }
        // By address, as a set's values are: the record is built where the callback's types are
        // concrete, so nothing here looks up `KVOChange<Value>`'s or `Optional<Value>`'s metadata.
        // (The inout forms: unspecialised, the borrowing one's closure was not inlined.)
        _withUnprotectedUnsafePointer(to: &newValue) { newPointer in
            let new = ValueAddress(newPointer)
            if oldIsKept, isKept {
                _withUnprotectedUnsafePointer(to: &kept) { oldPointer in
                    deliverReevaluated(object, old: ValueAddress(oldPointer), new: new, priorFirst: priorFirst)
                }
            } else {
                deliverReevaluated(object, old: old, new: new, priorFirst: priorFirst)
            }
        }
        // (Not in a `defer`: outlined there, it retained the tracker to make it the spare.)
        tracker.recycle()
    }

    /// The change record of a re-read (after its prior record, with `priorFirst`). With `.distinct`, nothing
    /// when the value is the one it had, unless its prior record went out already, before the change.
    @inline(__always)
    private func deliverReevaluated(_ object: Object, old: ValueAddress?, new: ValueAddress, priorFirst: Bool) {
        let priorWentOut = options.contains(.prior) && !priorFirst
        if !priorWentOut, changesNothing(old: old, new: new, type: Value.self) { return }
        if priorFirst, options.contains(.prior) {
            deliver { callDirect(object: object, oldValue: old, newValue: nil, type: Value.self, isPrior: true) }
        }
        deliver { callDirect(object: object, oldValue: old, newValue: new, type: Value.self, isPrior: false) }
    }
}
