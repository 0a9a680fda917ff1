import Synchronization

/// A transaction's changes (``withKVOTransaction(_:)``) on the paths that deliver from a set's own values:
/// noted for the transaction's end instead of delivered (see `TransactionChanges`).
extension KVOInfo {
    /// Whether some thread runs a transaction: only then is this thread asked whether it does.
    @inline(__always)
    static var transactionsMayRun: Bool {
        ThreadModes.running.load(ordering: .relaxed) != 0
    }

    /// Notes a set from the value at `old` (a `type`) if this thread runs a transaction; whether it does.
    /// `once`: before the set, which the note after it counts (a registration noted then keeps its place).
    @inline(never)
    final func deferredInTransaction(old: ValueAddress, type: Any.Type, once: Bool = false) -> Bool {
        let noted: Void? = TransactionChanges.withOnThisThread { transaction in
            // (A direct registration's property: its new value is there at the end. Another registration
            // of the slot, a chain's leaf, reads its value again.)
            let field = isDirect ? ThreadContext.withCurrent { $0.transactionSetField } : -1
            transaction.noteSet(self, field: field, old: old, type: type, once: once)
        }
        return noted != nil
    }

    /// Whether a transaction of another thread replaced a link of this chain and has not delivered it: the
    /// chain still follows the old links, so a change of it made now, on a thread that runs no
    /// transaction, is not delivered on its own. It is in that transaction's record, which reads the chain
    /// again at its end (a change of an object the chain no longer reaches is in nobody's record).
    ///
    /// Asked again after the change is stored: a transaction counts itself out before it reads the chain,
    /// so a change stored while it is still counted is in what it reads, and one found no longer counted
    /// is delivered as usual (its end may have read the chain before the store). No change is lost; one
    /// made just as the transaction ends may be in its record and in a record of its own.
    @inline(__always)
    final var linkAwaitsATransaction: Bool {
        linksAwaitingTransactions.load(ordering: .acquiring) != 0
    }

    /// `linkAwaitsATransaction`, asked after a change was stored. A count found is read again after a full
    /// fence, which orders it after the store, as the transaction's counting out (a read-modify-write) is
    /// before its read of the chain: one of the two sees the other. (None found needs no fence: the change
    /// is then delivered as usual.)
    final var linkStillAwaitsATransaction: Bool {
        guard linksAwaitingTransactions.load(ordering: .relaxed) != 0 else { return false }
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        return linksAwaitingTransactions.load(ordering: .sequentiallyConsistent) != 0
    }

    /// A set of a direct registration's `@Observed` property at `field` in this thread's transaction, found
    /// under the registrar's lock, which holds the registration (`notedSetInTransaction`): noted with the
    /// value before the set, at `old`, when that is kept as bytes; whether it was (not once cancelled). Its
    /// record is delivered at the end, inside its gate then (`deliverDeferredDirect`): the set itself
    /// enters no gate.
    final func noteSetInTransaction(field: Int, old: ValueAddress, type: Any.Type) -> Bool {
        guard isDirect, !isCancelled else { return false }
        return TransactionChanges.withOnThisThread {
            $0.noteSetAsBytes(self, field: field, old: old, type: type)
        } ?? false
    }

    /// The record of a direct registration at the transaction's end, from its old value kept as bytes
    /// and the bytes of its `@Observed` property at `field` now (a trivial value of `type`, `size` bytes):
    /// as a set delivers, with no generic code and nothing read through its key path. Nothing, with
    /// `.distinct`, when its value ends where it started.
    final func deliverDeferredDirect(old: TrivialValueBytes, type: Any.Type, size: Int, field: Int) {
        // (In the gate throughout, entered once: a registration ended meanwhile has unpinned its object,
        // whose memory may be gone.)
        guard tryEnter() else { return }
        defer { leave() }
        guard let object = object.load() else { return }
        // (Copied now: a prior callback may set the property before the change record goes.)
        let new = TrivialValueBytes(copying: FieldAddress(of: object, at: field).raw, size: size)
        old.withAddress { old in
            new.withAddress { new in
                if changesNothing(old: old, new: new, type: type) { return }
                markDeliveredChange()
                if options.contains(.prior) {
                    asCallback { callDirect(object: object, oldValue: old, newValue: nil, type: type, isPrior: true) }
                    // The prior callback may have cancelled this registration: then no change record.
                    if isCancelled { return }
                }
                asCallback { callDirect(object: object, oldValue: old, newValue: new, type: type, isPrior: false) }
            }
        }
    }
}
