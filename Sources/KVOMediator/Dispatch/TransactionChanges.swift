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

    /// How deeply transactions nest on this thread (0: none runs; the object is kept for the next one).
    var depth = 0
    private var entries: [Entry] = []
    /// Where each registration's entry is, once there are too many entries to search.
    private var positions: [ObjectIdentifier: Int] = [:]
    private static var searchedEntries: Int { 8 }

    /// The index of `info`'s entry, if it has one.
    @inline(__always)
    private func position(of info: KVOInfo) -> Int? {
        if entries.count <= Self.searchedEntries {
            return entries.firstIndex { $0.info === info }
        }
        return positions[ObjectIdentifier(info)]
    }

    /// Whether `info` changed in this transaction.
    func isPending(_ info: KVOInfo) -> Bool {
        position(of: info) != nil
    }

    /// This thread's transaction, if it runs one.
    @inline(__always)
    static var onThisThread: TransactionChanges? {
        guard ThreadModes.running.load(ordering: .relaxed) != 0 else { return nil }
        return onThisThreadSlowly()
    }

    @inline(never)
    private static func onThisThreadSlowly() -> TransactionChanges? {
        guard let context = ThreadContext.currentIfPresent, context.inTransaction,
            let transaction = context.transaction
        else { return nil }
        return KnownClass.cast(transaction, to: TransactionChanges.self)
    }

    /// A change of `info`'s value: the first one takes `old()`, its value before it.
    func note(_ info: KVOInfo, old: () -> Any?) {
        let death = ThreadContext.isAnnouncingDeath
        if let index = position(of: info) {
            entries[index].changes += 1
            entries[index].collection = nil
            if death { entries[index].includesDeath = true }
            return
        }
        if entries.count >= Self.searchedEntries {
            if positions.isEmpty {
                for (index, entry) in entries.enumerated() { positions[ObjectIdentifier(entry.info)] = index }
            }
            positions[ObjectIdentifier(info)] = entries.count
        }
        entries.append(Entry(info: info, old: old(), collection: nil, changes: 1, includesDeath: death))
    }

    /// `note`, unless `info` changed already in this transaction (a change announced twice: once
    /// before it, once after it).
    func noteOnce(_ info: KVOInfo, old: () -> Any?) {
        guard position(of: info) == nil else { return }
        note(info, old: old)
    }

    /// The collection mutation that `note` announced before it: kept while it is `info`'s only change.
    /// False, with nothing noted, when `info` has no change in this transaction (a mutation announced
    /// before the transaction began), which is then delivered as usual.
    func noteCollection(_ info: KVOInfo, _ change: () -> DeferredCollectionChange) -> Bool {
        guard let index = position(of: info) else { return false }
        if entries[index].changes == 1, entries[index].collection == nil { entries[index].collection = change() }
        return true
    }

    /// Starts a transaction on this thread (the outermost one, or one nested in it).
    static func begin() {
        ThreadContext.withCurrent { context in
            if context.inTransaction {
                KnownClass.cast(context.transaction.unsafelyUnwrapped, to: TransactionChanges.self).depth += 1
                return
            }
            // (The thread's transaction object is made once and kept, emptied, between transactions.)
            let transaction: TransactionChanges
            if let kept = context.transaction {
                transaction = KnownClass.cast(kept, to: TransactionChanges.self)
            } else {
                transaction = TransactionChanges()
                context.transaction = transaction
            }
            transaction.depth = 1
            context.inTransaction = true
            ThreadModes.running.wrappingAdd(1, ordering: .relaxed)
        }
    }

    /// Ends a transaction on this thread; the outermost one delivers what was deferred, one record per
    /// registration, after the transaction is over on this thread (so that its callbacks' own changes
    /// are delivered as usual, and a transaction a callback runs is a new one).
    static func end() {
        let context = ThreadContext.current
        let transaction = KnownClass.cast(context.transaction.unsafelyUnwrapped, to: TransactionChanges.self)
        transaction.depth -= 1
        guard transaction.depth == 0 else { return }
        context.inTransaction = false
        context.quietSlot = nil
        ThreadModes.running.wrappingSubtract(1, ordering: .relaxed)
        if transaction.entries.isEmpty { return }
        // Taken out, so that a transaction a callback runs on this thread starts empty; the storage is
        // given back afterwards, emptied, for the next one.
        var entries: [Entry] = []
        swap(&entries, &transaction.entries)
        if !transaction.positions.isEmpty { transaction.positions.removeAll() }
        for entry in entries {
            let collection = entry.changes == 1 ? entry.collection : nil
            if entry.includesDeath {
                ThreadContext.announcingDeath { entry.info.deliverDeferred(old: entry.old, collection: collection) }
            } else {
                entry.info.deliverDeferred(old: entry.old, collection: collection)
            }
        }
        entries.removeAll(keepingCapacity: true)
        if transaction.entries.isEmpty { transaction.entries = entries }
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

    /// The change that `parts` gives by address, its elements boxed.
    init(_ parts: _CollectionParts) {
        kind = parts.kind
        indexes = parts.indexes.indexSet
        old = parts.old.map { $0.loadBoxed(as: parts.type) }
        new = parts.new.map { $0.loadBoxed(as: parts.type) }
        type = parts.type
    }

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
