import Foundation

/// One thread's transaction (``withKVOTransaction(_:)``): the registrations whose changes it defers, in
/// the order of their first change, each with its value before that change, and the change itself
/// while it is a collection mutation and the only one. Only its own thread touches it.
final class TransactionChanges {
    /// A registration changed in the transaction.
    struct Entry {
        /// Held until its record is delivered.
        let info: KVOInfo
        /// Its value before its first change, boxed (nil when it could not be read).
        let old: Any?
        /// Its first change, while that is a collection mutation and the only change.
        var collection: DeferredCollectionChange?
        /// How many changes it saw.
        var changes: Int
        /// A weak referent's death was among them: delivered whatever `.distinct` says.
        var includesDeath: Bool
    }

    /// How deeply transactions nest on this thread.
    var depth = 0
    private var entries: [Entry] = []
    private var positions: [ObjectIdentifier: Int] = [:]

    /// This thread's transaction, if it runs one.
    @inline(__always)
    static var onThisThread: TransactionChanges? {
        guard ThreadContext.transactionsRunning.load(ordering: .relaxed) != 0 else { return nil }
        return onThisThreadSlowly()
    }

    @inline(never)
    private static func onThisThreadSlowly() -> TransactionChanges? {
        guard let transaction = ThreadContext.currentIfPresent?.transaction else { return nil }
        return KnownClass.cast(transaction, to: TransactionChanges.self)
    }

    /// A change of `info`'s value: the first one takes `old()`, its value before it.
    func note(_ info: KVOInfo, old: () -> Any?) {
        let death = ThreadContext.isAnnouncingDeath
        if let index = positions[ObjectIdentifier(info)] {
            entries[index].changes += 1
            entries[index].collection = nil
            if death { entries[index].includesDeath = true }
            return
        }
        positions[ObjectIdentifier(info)] = entries.count
        entries.append(Entry(info: info, old: old(), collection: nil, changes: 1, includesDeath: death))
    }

    /// `note`, unless `info` changed already in this transaction (a change announced twice: once
    /// before it, once after it).
    func noteOnce(_ info: KVOInfo, old: () -> Any?) {
        guard positions[ObjectIdentifier(info)] == nil else { return }
        note(info, old: old)
    }

    /// The collection mutation that `note` announced before it: kept while it is `info`'s only change.
    func noteCollection(_ info: KVOInfo, _ change: () -> DeferredCollectionChange) {
        guard let index = positions[ObjectIdentifier(info)] else { return }
        if entries[index].changes == 1, entries[index].collection == nil { entries[index].collection = change() }
    }

    /// Starts a transaction on this thread (the outermost one, or one nested in it).
    static func begin() {
        let context = ThreadContext.current
        if let transaction = context.transaction {
            KnownClass.cast(transaction, to: TransactionChanges.self).depth += 1
            return
        }
        let transaction = TransactionChanges()
        transaction.depth = 1
        context.transaction = transaction
        ThreadContext.transactionsRunning.wrappingAdd(1, ordering: .relaxed)
    }

    /// Ends a transaction on this thread; the outermost one delivers what was deferred, one record per
    /// registration, after the transaction is over on this thread (so that its callbacks' own changes
    /// are delivered as usual).
    static func end() {
        let context = ThreadContext.current
        let transaction = KnownClass.cast(context.transaction!, to: TransactionChanges.self)
        transaction.depth -= 1
        guard transaction.depth == 0 else { return }
        context.transaction = nil
        ThreadContext.transactionsRunning.wrappingSubtract(1, ordering: .relaxed)
        for entry in transaction.entries {
            let collection = entry.changes == 1 ? entry.collection : nil
            if entry.includesDeath {
                ThreadContext.announcingDeath { entry.info.deliverDeferred(old: entry.old, collection: collection) }
            } else {
                entry.info.deliverDeferred(old: entry.old, collection: collection)
            }
        }
    }
}

/// A collection mutation deferred by a transaction, its elements boxed.
struct DeferredCollectionChange {
    let kind: KVOChangeKind
    let indexes: IndexSet?
    /// The removed and the inserted elements, each a collection of `type`.
    let old: Any?
    let new: Any?
    let type: Any.Type

    /// Calls `body` with the change in parts, the elements by address.
    func withParts(_ body: (_CollectionParts) -> Void) {
        func withNew(_ oldAddress: ValueAddress?) {
            guard let new else { return body(parts(oldAddress, nil)) }
            func open<Elements>(_ elements: Elements) {
                withUnsafePointer(to: elements) { body(parts(oldAddress, ValueAddress($0))) }
            }
            _openExistential(new, do: open)
        }
        guard let old else { return withNew(nil) }
        func open<Elements>(_ elements: Elements) {
            withUnsafePointer(to: elements) { withNew(ValueAddress($0)) }
        }
        _openExistential(old, do: open)
    }

    private func parts(_ old: ValueAddress?, _ new: ValueAddress?) -> _CollectionParts {
        _CollectionParts(kind: kind, indexes: _KVOIndexes(indexes), old: old, new: new, type: type)
    }
}
