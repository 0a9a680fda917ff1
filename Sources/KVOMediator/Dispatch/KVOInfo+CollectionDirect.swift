/// Delivering a proxy's mutation of an `@Observed` collection to the slot's one registration, entered
/// under the registrar's lock as a set's is (`KVORegistrar.announcedToSingle`): its records made inside
/// that one entry of the gate, with no list of registrations and no reference counting.
extension KVOInfo {
    /// The prior record, `apply`, the change record; then leaves the gate (see
    /// ``SlotObserver/mutateCollectionDirect(object:parts:passed:apply:)``). A chain ending at the collection
    /// delivers with its observed object, loaded once in the gate; nothing once that object is gone.
    final func deliverCollectionDirect(
        object: AnyObject,
        parts: inout _CollectionParts,
        passed: Bool,
        apply: () -> Void
    ) {
        // (In a transaction each record is noted, the prior one before the mutation, as `announcedDirectly`
        // does for several registrations: through the gate again, which holds while this entry does.)
        if _slowPath(Self.transactionsMayRun) {
            if sendsPriorRecords || ThreadContext.isInTransaction { priorCollection(object: object, parts: parts) }
            apply()
            changeCollection(object: object, parts: parts)
            return leave(passed: passed)
        }
        if isDirect {
            collectionRecords(object: object, &parts, apply)
        } else if reachesLeaf(object), let root = self.object.load() {
            collectionRecords(object: root, &parts, apply)
        } else {
            apply()
        }
        leave(passed: passed)
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
