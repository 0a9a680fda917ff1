/// Delivering from a setter's own values: to a direct registration, and to a typed chain whose leaf
/// (``SlotObserver/leaf``) was set. The values go by address with their type, and the record is built by
/// the box's function, where the types are concrete.
extension KVOInfo {
    /// The object a record of a set of `changed` goes with: `changed` itself for a direct registration,
    /// the observed object (retained, if it is still there) for a chain's leaf. Inside the gate. Nothing
    /// for a chain's leaf whose holder is deinitialising (see `reachesLeaf(_:)`).
    @inline(__always)
    private func withObservedObject(changed: AnyObject, _ body: (AnyObject) -> Void) {
        if isDirect { return body(changed) }
        if reachesLeaf(changed), let root = object.load() { body(root) }
    }

    /// Whether a set of `changed` is a change of this chain's value: not when `changed`, the leaf's
    /// holder, has started deinitialising. A chain reaches such an object only through a weak link,
    /// which already reads nil (a strong one would keep it alive), so the chain's value is nil, not
    /// what its deinit sets; the link's own announcement of the death delivers that nil. (Asked of the
    /// runtime only for a chain that read a link that may be weak, an `@ObservedWeak` property or custom
    /// storage: a call, on the path of every leaf set.)
    @inline(__always)
    final func reachesLeaf(_ changed: AnyObject) -> Bool {
        !readsWeakLink.load(ordering: .relaxed)
            || !SwiftRuntime.isDeinitialising(changed)
    }

    /// Before a set of the slot this registration takes values of (``takesValues(ofSlot:)``): the prior
    /// record, if asked for (and unless, with `.distinct`, the set changes nothing).
    final func deliverPriorDirect(object: AnyObject, oldValue: ValueAddress, newValue: ValueAddress, type: Any.Type) {
        // (In a transaction, noted here, so that the registrations of one change keep their order; the prior
        // record goes with the transaction's record, at its end.)
        if _slowPath(Self.transactionsMayRun),
            deferredInTransaction(old: oldValue, type: type, once: true) || linkAwaitsATransaction
        {
            return
        }
        guard options.contains(.prior), !changesNothing(old: oldValue, new: newValue, type: type) else { return }
        deliver {
            withObservedObject(changed: object) {
                callDirect(object: $0, oldValue: oldValue, newValue: nil, type: type, isPrior: true)
            }
        }
    }

    /// After a set of the slot this registration takes values of: the change record from the setter's
    /// own values.
    final func deliverChangeDirect(object: AnyObject, oldValue: ValueAddress, newValue: ValueAddress, type: Any.Type) {
        // (After the store: see `linkAwaitsATransaction`.)
        if _slowPath(Self.transactionsMayRun),
            deferredInTransaction(old: oldValue, type: type) || linkStillAwaitsATransaction
        {
            return
        }
        if changesNothing(old: oldValue, new: newValue, type: type) { return }
        deliver {
            withObservedObject(changed: object) {
                callDirect(object: $0, oldValue: oldValue, newValue: newValue, type: type, isPrior: false)
            }
        }
    }

    /// A whole set of the slot this registration takes values of, already inside the gate (entered
    /// under the registrar's lock, through this thread's pass if `passed`): the prior record, `store`,
    /// the change record; then leaves the gate.
    final func deliverSetDirect(
        object: AnyObject,
        oldValue: ValueAddress,
        newValue: ValueAddress,
        type: Any.Type,
        passed: Bool,
        store: () -> Void
    ) {
        if isDirect {
            setDirect(
                delivering: object,
                oldValue: oldValue,
                newValue: newValue,
                type: type,
                passed: passed,
                store: store
            )
        } else {
            setChainLeaf(object, oldValue: oldValue, newValue: newValue, type: type, passed: passed, store: store)
        }
    }

    /// `deliverSetDirect` for a chain whose leaf `changed` holds: delivered with the observed object. (Out
    /// of line: each function then inlines one `setDirect`, which the optimiser keeps inlined in both.)
    @inline(never)
    private func setChainLeaf(
        _ changed: AnyObject,
        oldValue: ValueAddress,
        newValue: ValueAddress,
        type: Any.Type,
        passed: Bool,
        store: () -> Void
    ) {
        if reachesLeaf(changed), let root = self.object.load() {
            setDirect(
                delivering: root,
                oldValue: oldValue,
                newValue: newValue,
                type: type,
                passed: passed,
                store: store
            )
        } else {
            store()
            leave(passed: passed)
        }
    }

    @inline(__always)
    private func setDirect(
        delivering object: AnyObject,
        oldValue: ValueAddress,
        newValue: ValueAddress,
        type: Any.Type,
        passed: Bool,
        store: () -> Void
    ) {
        // (One test for both on the common path, which is inlined into the set's path twice; each loaded
        // once, where asking again loaded the atomic and the options again.)
        let transactionsMayRun = Self.transactionsMayRun
        let distinct = options.contains(.distinct)
        if _slowPath(transactionsMayRun || distinct) {
            if transactionsMayRun, deferredInTransaction(old: oldValue, type: type) {
                return storeUnchanged(store, passed: passed)
            }
            if transactionsMayRun, !isDirect, linkAwaitsATransaction {
                return storeTakenByATransaction(object, oldValue, newValue, type: type, passed: passed, store: store)
            }
            if distinct, isSame(oldValue, newValue, type: type) {
                return storeUnchanged(store, passed: passed)
            }
        }
        if options.contains(.prior) {
            asCallback { callDirect(object: object, oldValue: oldValue, newValue: nil, type: type, isPrior: true) }
        }
        store()
        // The prior callback may have cancelled this registration: then no change record.
        if !isCancelled {
            markDeliveredChange()
            asCallback {
                callDirect(object: object, oldValue: oldValue, newValue: newValue, type: type, isPrior: false)
            }
        }
        leave(passed: passed)
    }

    /// `setDirect` of a chain's leaf whose change another thread's transaction takes (see
    /// `linkAwaitsATransaction`): stored, and delivered only if that transaction delivered meanwhile; then
    /// leaves the gate. (Out of line: the set's path inlines `setDirect` twice.)
    @inline(never)
    private func storeTakenByATransaction(
        _ object: AnyObject,
        _ oldValue: ValueAddress,
        _ newValue: ValueAddress,
        type: Any.Type,
        passed: Bool,
        store: () -> Void
    ) {
        store()
        if !linkStillAwaitsATransaction, !isCancelled {
            markDeliveredChange()
            asCallback {
                callDirect(object: object, oldValue: oldValue, newValue: newValue, type: type, isPrior: false)
            }
        }
        leave(passed: passed)
    }

    /// Calls back with a record of values at these addresses, of type `type` (filtered by the
    /// options); inside the gate.
    @inline(__always)
    final func callDirect(
        object: AnyObject,
        oldValue: ValueAddress?,
        newValue: ValueAddress?,
        type: Any.Type,
        isPrior: Bool
    ) {
        let old = options.contains(.old) ? oldValue : nil
        let new = options.contains(.new) ? newValue : nil
        if _slowPath(kindBits & 0b11 == ReaderKind.flattening.rawValue) {
            return callFlattened(object: object, old, new, type: type, isPrior: isPrior)
        }
        // Inside the gate the box cannot be released.
        box?.with { $0.deliver($0, object, old, new, type, isPrior, self) }
    }

    /// A string key path's record of a set's own values: each out of its optionals, as the key path's
    /// subscript gives it (a `String?` holding `"a"` gives `"a"`; nil gives a value that is nil).
    @inline(never)
    private func callFlattened(
        object: AnyObject,
        _ oldValue: ValueAddress?,
        _ newValue: ValueAddress?,
        type: Any.Type,
        isPrior: Bool
    ) {
        // (Only an optional has optionals to remove: a cast per value found that out at 12 times the cost.)
        let isOptional = isOptionalType(type)
        // Nothing to remove: the values as they are, which the box's function boxes as `Any` itself (a
        // record built here was copied there, existentials and all).
        guard isOptional else {
            box?.with { $0.deliver($0, object, oldValue, newValue, type, isPrior, self) }
            return
        }
        let change = KVOChange<Any>(
            oldValue: oldValue.map { byName($0.loadBoxed(as: type), isOptional: isOptional) },
            newValue: newValue.map { byName($0.loadBoxed(as: type), isOptional: isOptional) },
            isPrior: isPrior,
            holder: self
        )
        callRecord(object: object, change)
    }

    /// `value` as a string key path's subscript gives it: out of its optionals, or a nil `Any?` if any is nil.
    private func byName(_ value: Any, isOptional: Bool) -> Any {
        guard isOptional else { return value }
        if let value = flattened(value) { return value }
        return Any?.none as Any
    }

    /// Calls back with a collection mutation's record, in parts; inside the gate.
    final func callCollection(object: AnyObject, _ parts: _CollectionParts, isPrior: Bool) {
        _withValuePointer(to: parts) {
            callCollection(object: object, at: ValueAddress($0), isPrior: isPrior)
        }
    }

    /// `callCollection` with the parts at `parts`.
    @inline(__always)
    final func callCollection(object: AnyObject, at parts: ValueAddress, isPrior: Bool) {
        box?.with { $0.deliver($0, object, nil, parts, _CollectionParts.self, isPrior, self) }
    }

    /// Calls back with a whole record (of the registration's value type); inside the gate.
    @inline(__always)
    final func callRecord<Value>(object: AnyObject, _ change: KVOChange<Value>) {
        _withValuePointer(to: change) { recordPointer in
            let record = ValueAddress(recordPointer)
            box?.with { $0.deliver($0, object, nil, record, nil, change.isPrior, self) }
        }
    }
}
