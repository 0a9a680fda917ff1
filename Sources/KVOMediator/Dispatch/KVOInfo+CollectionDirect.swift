/// Delivering a proxy's mutation of an `@Observed` collection to the slot's one registration, entered
/// under the registrar's lock as a set's is (`KVORegistrar.mutateInGate`): its records made inside
/// that one entry of the gate, with no list of registrations and no reference counting.
extension KVOInfo {
    /// The prior record, `apply`, the change record; then leaves the gate (see
    /// ``SlotObserver/mutateCollectionDirect(object:parts:passed:appliesInGate:apply:)``). A chain ending at
    /// the collection delivers with its observed object, loaded once in the gate; nothing once that object
    /// is gone.
    final func deliverCollectionDirect(
        object: AnyObject,
        parts: inout _CollectionParts,
        passed: Bool,
        appliesInGate: Bool,
        apply: () -> Void
    ) {
        // A mutation that may run code of the user's (Observation's willSet and didSet, for a class that
        // bridges to it) runs outside the gate, as it did with several registrations: a cancel from that
        // code must not wait for this entry. So does one in a transaction, where each record is noted (the
        // prior one before the mutation). Each record then goes through the gate again.
        if _slowPath(Self.transactionsMayRun || !appliesInGate) {
            if sendsPriorRecords || ThreadContext.isInTransaction { priorCollection(object: object, parts: parts) }
            leave(passed: passed)
            apply()
            changeCollection(object: object, parts: parts)
            return
        }
        if isDirect {
            collectionRecords(object: object, &parts, apply)
            leave(passed: passed)
        } else if reachesLeaf(object), let root = self.object.load() {
            collectionRecords(object: root, &parts, apply)
            // (The observed object let go once out of the gate: its deinit may cancel this registration.)
            withExtendedLifetime(root) { leave(passed: passed) }
        } else {
            apply()
            leave(passed: passed)
        }
    }

    /// The prior record, `apply`, the change record, each delivered with `object`; inside the gate.
    @inline(__always)
    private func collectionRecords(object: AnyObject, _ parts: inout _CollectionParts, _ apply: () -> Void) {
        let keepsOld = options.contains(.old)
        if options.contains(.prior) {
            markDeliveredChange()
            parts.withKept(old: keepsOld, new: false) { prior in
                asCallback { callCollection(object: object, at: prior, isPrior: true) }
            }
        }
        apply()
        // The prior callback may have cancelled this registration: then no change record.
        if !isCancelled {
            markDeliveredChange()
            parts.withKept(old: keepsOld, new: options.contains(.new)) { change in
                asCallback { callCollection(object: object, at: change, isPrior: false) }
            }
        }
    }
}
