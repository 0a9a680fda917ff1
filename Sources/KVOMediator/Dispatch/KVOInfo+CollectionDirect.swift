/// Delivering a proxy's mutation of an `@Observed` collection to the slot's one registration, entered
/// under the registrar's lock as a set's is (`KVORegistrar.mutateInGate`): its records made inside
/// that one entry of the gate, with no list of registrations and no reference counting.
extension KVOInfo {
    /// The prior record, `apply`, the change record; then leaves the gate (see
    /// ``SlotObserver/mutateCollectionDirect(object:parts:passed:apply:)``). A chain ending at the collection
    /// delivers with its observed object, loaded once in the gate; nothing once that object is gone. Nothing
    /// of this registration is used after it leaves: then it may be released.
    final func deliverCollectionDirect(
        object: AnyObject,
        parts: inout _CollectionParts,
        passed: Bool,
        apply: () -> Void
    ) {
        // (Neither a mutation that may run code of the user's nor one in this thread's transaction comes
        // here: `KVORegistrar.mutateCollection` announces those to the slot's list.)
        assert(!ThreadContext.isInTransaction)
        if isDirect {
            collectionRecords(object: object, &parts, apply)
            leave(passed: passed)
        } else if reachesLeaf(object), let root = self.object.load() {
            // (Another thread's transaction may take it: see `linkAwaitsATransaction`.)
            let taken = Self.transactionsMayRun && linkAwaitsATransaction
            collectionRecords(object: root, &parts, apply, unlessTaken: taken)
            // (The observed object let go once out of the gate: its deinit may cancel this registration.)
            withExtendedLifetime(root) { leave(passed: passed) }
        } else {
            apply()
            leave(passed: passed)
        }
    }

    /// The prior record, `apply`, the change record, each delivered with `object`; inside the gate.
    /// `unlessTaken`: another thread's transaction takes the mutation (no prior record), unless it
    /// delivered while the mutation was applied (then the change record goes as usual).
    @inline(__always)
    private func collectionRecords(
        object: AnyObject,
        _ parts: inout _CollectionParts,
        _ apply: () -> Void,
        unlessTaken taken: Bool = false
    ) {
        let keepsOld = options.contains(.old)
        if options.contains(.prior), !taken {
            markDeliveredChange()
            parts.withKept(old: keepsOld, new: false) { prior in
                asCallback { callCollection(object: object, at: prior, isPrior: true) }
            }
        }
        apply()
        if taken, linkStillAwaitsATransaction { return }
        // The prior callback may have cancelled this registration: then no change record.
        if !isCancelled {
            markDeliveredChange()
            parts.withKept(old: keepsOld, new: options.contains(.new)) { change in
                asCallback { callCollection(object: object, at: change, isPrior: false) }
            }
        }
    }
}
