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
        guard let transaction = TransactionChanges.onThisThread else { return false }
        if once {
            transaction.noteOnce(self) { old.loadBoxed(as: type) }
        } else {
            transaction.note(self) { old.loadBoxed(as: type) }
        }
        return true
    }
}
