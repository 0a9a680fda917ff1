/// Runs `body` as one transaction: the changes it makes on this thread are delivered when it returns,
/// one record per registration, with the value before its first change and the value at the end.
///
/// ```swift
/// withKVOTransaction {
///     account.balance = 10
///     account.balance = 20
///     account.pending = 5
/// }
/// // Now, and once each: balance 0 → 20, available 0 → 15.
/// ```
///
/// The callbacks of the changes `body` makes never see them half done: an invariant that holds before
/// and after `body` holds in each of them. (Callbacks of changes made on other threads meanwhile, and an
/// `.initial` record delivered inside `body`, see the object as it is when they run.) The rules:
/// - Changes made on this thread inside `body` are not delivered while it runs. When the outermost
///   transaction returns (also when it throws: what it changed is delivered, then the error is
///   rethrown), each registration whose value `body` changed gets exactly one record: old is its value
///   before its first change in the transaction, new its value now. With `.prior`, its prior record goes
///   right before it. Registrations go in the order of their first change (those of one change in the
///   order they were made).
/// - Computed properties and chains are read once, at the end (and their dependencies brought up to
///   date then). A value stream yields once.
/// - A collection changed once keeps its kind and indexes. Changed more than once (or also set), it is
///   one `.setting` of its whole old and new values.
/// - With `.distinct`, a registration whose value ends where it started gets nothing.
/// - Transactions nest: only the outermost one delivers.
/// - Changes made on other threads meanwhile are delivered as usual, on their threads. A record of the
///   transaction then goes from its registration's value before the transaction's first change to its
///   value at the end, whoever made the changes in between. A chain whose link `body` replaces follows
///   the new link from the end: what another thread changes meanwhile on the new link's objects is in
///   the transaction's record, not delivered on its own.
/// - A manual change announced across the transaction's edge (`willChangeValue(for:)` before it,
///   `didChangeValue(for:)` inside it) is delivered as usual, when it completes.
/// - A callback that reads the object sees it as it is after the transaction (and after anything the
///   callbacks before it changed). Changes a callback makes are delivered as usual: the transaction is
///   over.
/// - The `.initial` record of an `observe` inside a transaction is delivered at once, as always. A
///   registration ended inside the transaction gets nothing; nor does one whose object is gone.
/// - Deliveries to a queue or the main actor are handed there at the end, as one change each.
///
/// - Parameter body: The changes, made on this thread.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, after delivering what it changed.
@inlinable
public func withKVOTransaction<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
    _beginKVOTransaction()
    defer { _endKVOTransaction() }
    return try body()
}

/// Starts a transaction on this thread (``withKVOTransaction(_:)``, inlined where it is called, so that
/// its generic body is specialised there).
@usableFromInline
func _beginKVOTransaction() {
    TransactionChanges.begin()
}

/// Ends a transaction on this thread, delivering its records if it is the outermost.
@usableFromInline
func _endKVOTransaction() {
    TransactionChanges.end()
}
