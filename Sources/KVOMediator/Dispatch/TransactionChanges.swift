import Foundation

/// One thread's transaction (``withKVOTransaction(_:)``): the registrations whose changes it defers, in
/// the order of their first change, each with its value before that change, and the change itself
/// while it is a collection mutation and the only one. Only its own thread touches it.
final class TransactionChanges {
    /// A registration changed in the transaction.
    struct Entry {
        /// Held until its record is delivered.
        let info: KVOInfo
        /// Its value before its first change.
        let old: DeferredValue
        /// For a direct registration noted by a set of its `@Observed` property: the property's byte offset
        /// in the object, where its new value is at the end (-1: read it again).
        let field: Int
        /// Its first change, while that is a collection mutation and the only change.
        var collection: DeferredCollectionChange?
        /// How many changes it saw.
        var changes: Int
        /// A weak referent's death was among them: delivered whatever `.distinct` says.
        var includesDeath: Bool
    }

    /// What it holds, touched only by its thread, and never while user code runs (see `note`).
    private struct State {
        /// How deeply transactions nest on this thread (0: none runs; the object is kept for the next one).
        var depth = 0
        var entries: [Entry] = []
        /// Where each registration's entry is, once there are too many entries to search.
        var positions: [ObjectIdentifier: Int] = [:]
    }

    /// (Only this thread touches it: in a `GuardedFields`, with no runtime exclusivity check on each access.)
    private let owned = GuardedFields(guarded: State())
    private static var searchedEntries: Int { 8 }

    private var entries: [Entry] {
        _read { yield owned.guarded.entries }
        _modify { yield &owned.guarded.entries }
    }

    /// The index of `info`'s entry, if it has one.
    @inline(__always)
    private func position(of info: KVOInfo) -> Int? {
        if entries.count <= Self.searchedEntries {
            return entries.firstIndex { $0.info === info }
        }
        return owned.guarded.positions[ObjectIdentifier(info)]
    }

    /// Whether `info` changed in this transaction.
    func isPending(_ info: KVOInfo) -> Bool {
        position(of: info) != nil
    }

    /// Calls `body` with this thread's transaction, if it runs one (nil if not), with no reference counting.
    @inline(__always)
    static func withOnThisThread<Result>(_ body: (TransactionChanges) -> Result) -> Result? {
        guard ThreadModes.running.load(ordering: .relaxed) != 0 else { return nil }
        return ThreadContext.withTransaction(as: TransactionChanges.self, body)
    }

    /// A change of `info`'s value: the first one takes `old()`, its value before it, and `field` (see
    /// `Entry`).
    func note(_ info: KVOInfo, field: Int = -1, old: () -> DeferredValue) {
        let death = ThreadContext.isAnnouncingDeath
        if noteAgain(info, death: death) { return }
        // (Read before the entry is made: reading may run a getter, which may change things too.)
        let value = old()
        if noteAgain(info, death: death) { return }
        if entries.count >= Self.searchedEntries {
            if owned.guarded.positions.isEmpty {
                for (index, entry) in entries.enumerated() {
                    owned.guarded.positions[ObjectIdentifier(entry.info)] = index
                }
            }
            owned.guarded.positions[ObjectIdentifier(info)] = entries.count
        }
        if entries.isEmpty { ThreadContext.withCurrent { $0.transactionDeferredAny = true } }
        owned.guarded.entries.append(
            Entry(info: info, old: value, field: field, collection: nil, changes: 1, includesDeath: death)
        )
    }

    /// Counts a change of `info` in its entry, if it has one.
    @inline(__always)
    private func noteAgain(_ info: KVOInfo, death: Bool) -> Bool {
        guard let index = position(of: info) else { return false }
        entries[index].changes += 1
        entries[index].collection = nil
        if death { entries[index].includesDeath = true }
        return true
    }

    /// `note`, unless `info` changed already in this transaction (a change announced twice: once
    /// before it, once after it).
    func noteOnce(_ info: KVOInfo, field: Int = -1, old: () -> DeferredValue) {
        guard position(of: info) == nil else { return }
        note(info, field: field, old: old)
    }

    /// The collection mutation that `note` announced before it: kept while it is `info`'s only change.
    /// False, with nothing noted, when `info` has no change in this transaction (a mutation announced
    /// before the transaction began), which is then delivered as usual.
    func noteCollection(_ info: KVOInfo, _ change: () -> DeferredCollectionChange) -> Bool {
        guard let index = position(of: info) else { return false }
        if entries[index].changes == 1, entries[index].collection == nil {
            let collection = change()
            entries[index].collection = collection
        }
        return true
    }

    /// Starts a transaction on this thread (the outermost one, or one nested in it).
    static func begin() {
        ThreadContext.withCurrent { context in
            // (The thread's transaction object is made once and kept, emptied, between transactions.)
            context.withTransactionState(as: TransactionChanges.self, make: TransactionChanges.init) { transaction in
                transaction.owned.guarded.depth += 1
            }
            if context.inTransaction { return }
            context.inTransaction = true
            ThreadModes.running.wrappingAdd(1, ordering: .relaxed)
        }
    }

    /// Ends a transaction on this thread; the outermost one delivers what was deferred, one record per
    /// registration, after the transaction is over on this thread (so that its callbacks' own changes
    /// are delivered as usual, and a transaction a callback runs is a new one).
    static func end() {
        // Taken out, so that a transaction a callback runs on this thread starts empty; the storage is
        // given back afterwards, emptied, for the next one.
        guard var entries = ThreadContext.withCurrent(endOutermost) else { return }
        for index in entries.indices { deliver(entries, at: index) }
        // (Emptied from the end, keeping the storage: `removeAll(keepingCapacity:)` costs more for a few.)
        while !entries.isEmpty { entries.removeLast() }
        ThreadContext.withCurrent { context in
            context.withTransactionState(as: TransactionChanges.self, make: TransactionChanges.init) { transaction in
                if transaction.owned.guarded.entries.isEmpty { transaction.owned.guarded.entries = entries }
            }
        }
    }

    /// Ends a transaction on the thread whose context is `context`: when it is the outermost, the thread's
    /// transaction is over and its entries are taken out (nil: none, or not the outermost).
    private static func endOutermost(_ context: ThreadContext) -> [Entry]? {
        context.withTransactionState(as: TransactionChanges.self, make: TransactionChanges.init) { transaction in
            transaction.owned.guarded.depth -= 1
            guard transaction.owned.guarded.depth == 0 else { return nil }
            context.inTransaction = false
            context.transactionDeferredAny = false
            context.quietSlot = nil
            ThreadModes.running.wrappingSubtract(1, ordering: .relaxed)
            if transaction.owned.guarded.entries.isEmpty { return nil }
            if !transaction.owned.guarded.positions.isEmpty { transaction.owned.guarded.positions.removeAll() }
            var entries: [Entry] = []
            swap(&entries, &transaction.owned.guarded.entries)
            return entries
        }
    }

    /// The record of one registration's changes (read in place: no copy of the entry).
    private static func deliver(_ entries: [Entry], at index: Int) {
        let collection = entries[index].changes == 1 ? entries[index].collection : nil
        let info = entries[index].info
        if collection == nil, entries[index].field >= 0, !entries[index].includesDeath,
            case .bytes(let old, let type, let size) = entries[index].old
        {
            return info.deliverDeferredDirect(old: old, type: type, size: size, field: entries[index].field)
        }
        let old = entries[index].old.boxed
        if entries[index].includesDeath {
            ThreadContext.announcingDeath { info.deliverDeferred(old: old, collection: collection) }
        } else {
            info.deliverDeferred(old: old, collection: collection)
        }
    }
}

/// A collection mutation deferred by a transaction, its elements boxed. (A class: a transaction's entries,
/// copied as they are delivered, then hold one word for it.)
final class DeferredCollectionChange {
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
