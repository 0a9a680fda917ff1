/// One thread's transaction (``withKVOTransaction(_:)``): the registrations whose changes it defers, in
/// the order of their first change, each with its value before that change, and the change itself
/// while it is a collection mutation and the only one. Only its own thread touches it.
final class TransactionChanges {
    /// A registration changed in the transaction. Trivial (no reference counting to append, read or drop
    /// one): the registration is held by an explicit retain, and what needs counting is in an `Extra`.
    struct Entry {
        /// Retained when noted, released once its record is delivered.
        let info: Unretained<KVOInfo>
        /// For a direct registration noted by a set of its `@Observed` property: the property's byte offset
        /// in the object, where its new value is at the end (-1: read it again).
        let field: Int
        /// Its value before its first change, when that is of a small trivial type (`oldType`, `oldSize`
        /// bytes): as bytes.
        let oldBytes: TrivialValueBytes
        /// The type of `oldBytes`; nil when the old value is boxed in its extra, or was not read (the
        /// object was gone).
        let oldType: Any.Type?
        let oldSize: Int
        /// Where its `Extra` is in `extras` (-1: it has none).
        var extra: Int
        /// How many changes it saw.
        var changes: Int
        /// A weak referent's death was among them: delivered whatever `.distinct` says.
        var includesDeath: Bool
        /// A link of its chain was replaced: counted in its `linksAwaitingTransactions` until delivered.
        var replacedLink = false

        /// Counts this transaction out of its registration's `linksAwaitingTransactions`, if it is counted.
        func countOut() {
            guard replacedLink else { return }
            info.with { _ = $0.linksAwaitingTransactions.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
        }
    }

    /// What an entry holds that is reference counted, kept apart (most entries need none).
    struct Extra {
        /// Its value before its first change, boxed (a value that is not kept as bytes).
        var old: Any?
        /// Its first change, while that is a collection mutation and the only change.
        var collection: DeferredCollectionChange?
    }

    /// What it holds, touched only by its thread, and never while user code runs (see `note`).
    private struct State {
        /// How deeply transactions nest on this thread (0: none runs; the object is kept for the next one).
        var depth = 0
        var entries: [Entry] = []
        var extras: [Extra] = []
        /// Where each registration's entry is, once there are too many entries to search.
        var positions: [ObjectIdentifier: Int] = [:]
        /// The last type whose values `noteSet` asked about, and their size when they are kept as bytes
        /// (-1: boxed). An accelerator: the answer is the same without it.
        var lastType: Any.Type?
        var lastTypeSize = -1
        /// Whether an entry replaced a link (`noteLinkReplaced`): only then are entries counted out at the end.
        var replacedLinks = false
    }

    /// (Only this thread touches it: in a `GuardedFields`, with no runtime exclusivity check on each access.)
    private let owned = GuardedFields(guarded: State())

    deinit {
        // (Entries are left only by a thread that exits inside a transaction's body: their retains go too.)
        for entry in owned.guarded.entries {
            entry.countOut()
            entry.info.release()
        }
    }
    private static var searchedEntries: Int { 8 }

    private var entries: [Entry] {
        _read { yield owned.guarded.entries }
        _modify { yield &owned.guarded.entries }
    }

    /// The index of `info`'s entry, if it has one.
    @inline(__always)
    private func position(of info: KVOInfo) -> Int? {
        if entries.count <= Self.searchedEntries {
            return entries.firstIndex { $0.info.id == ObjectIdentifier(info) }
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
        switch value {
        case .none:
            append(info, field: field, bytes: TrivialValueBytes(), type: nil, size: 0, death: death)
        case .bytes(let bytes, let type, let size):
            append(info, field: field, bytes: bytes, type: type, size: size, death: death)
        case .boxed(let boxed):
            let extra = owned.guarded.extras.count
            owned.guarded.extras.append(Extra(old: boxed, collection: nil))
            append(info, field: field, bytes: TrivialValueBytes(), type: nil, size: 0, extra: extra, death: death)
        }
    }

    /// A set's change of `info`'s value, from the value before it at `old` (a `type`): `note`, for a value
    /// that is there to copy, with no getter to run (see `DeferredValue(at:type:)`). `once`: see `noteOnce`.
    func noteSet(_ info: KVOInfo, field: Int, old: ValueAddress, type: Any.Type, once: Bool) {
        noteSet(info, field: field, old: old, type: type, once: once, size: bytesSize(of: type))
    }

    /// `noteSet` of a value kept as bytes (`TrivialValueBytes.fits`) only: false, with nothing noted, for
    /// any other, so that a set noted under its registrar's lock boxes nothing there.
    func noteSetAsBytes(_ info: KVOInfo, field: Int, old: ValueAddress, type: Any.Type) -> Bool {
        let size = bytesSize(of: type)
        guard size >= 0 else { return false }
        noteSet(info, field: field, old: old, type: type, once: false, size: size)
        return true
    }

    /// `noteSet` with the size of `type`'s values as bytes (-1: they are boxed).
    @inline(__always)
    private func noteSet(_ info: KVOInfo, field: Int, old: ValueAddress, type: Any.Type, once: Bool, size: Int) {
        let death = ThreadContext.isAnnouncingDeath
        if once ? position(of: info) != nil : noteAgain(info, death: death) { return }
        if size >= 0 {
            let bytes = TrivialValueBytes(copying: old.raw, size: size)
            append(info, field: field, bytes: bytes, type: type, size: size, death: death)
        } else {
            note(info, field: field) { DeferredValue(at: old, type: type) }
        }
    }

    /// The size of `type`'s values when they are kept as bytes (`TrivialValueBytes.fits`), else -1.
    @inline(__always)
    private func bytesSize(of type: Any.Type) -> Int {
        if let last = owned.guarded.lastType, last == type { return owned.guarded.lastTypeSize }
        let size = DeferredValue.bytesSize(of: type)
        owned.guarded.lastType = type
        owned.guarded.lastTypeSize = size
        return size
    }

    /// Makes `info`'s entry, retaining it (`extra`: where its extra is, if it has one).
    private func append(
        _ info: KVOInfo,
        field: Int,
        bytes: TrivialValueBytes,
        type: Any.Type?,
        size: Int,
        extra: Int = -1,
        death: Bool
    ) {
        if entries.count >= Self.searchedEntries {
            if owned.guarded.positions.isEmpty {
                for (index, entry) in entries.enumerated() {
                    owned.guarded.positions[entry.info.id] = index
                }
            }
            owned.guarded.positions[ObjectIdentifier(info)] = entries.count
        }
        if entries.isEmpty { ThreadContext.withCurrent { $0.transactionDeferredAny = true } }
        owned.guarded.entries.append(
            Entry(
                info: Unretained(retaining: info),
                field: field,
                oldBytes: bytes,
                oldType: type,
                oldSize: size,
                extra: extra,
                changes: 1,
                includesDeath: death
            )
        )
    }

    /// Counts a change of `info` in its entry, if it has one.
    @inline(__always)
    private func noteAgain(_ info: KVOInfo, death: Bool) -> Bool {
        guard let index = position(of: info) else { return false }
        entries[index].changes += 1
        let extra = entries[index].extra
        if extra >= 0 { owned.guarded.extras[extra].collection = nil }
        if death { entries[index].includesDeath = true }
        return true
    }

    /// Notes that a change noted for `info` replaced a link of its chain: other threads' changes of the
    /// chain go into this transaction's record until it is delivered (see `linkAwaitsATransaction`).
    func noteLinkReplaced(_ info: KVOInfo) {
        guard let index = position(of: info), !entries[index].replacedLink else { return }
        entries[index].replacedLink = true
        owned.guarded.replacedLinks = true
        info.linksAwaitingTransactions.wrappingAdd(1, ordering: .releasing)
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
        guard entries[index].changes == 1 else { return true }
        var extra = entries[index].extra
        if extra < 0 {
            extra = owned.guarded.extras.count
            owned.guarded.extras.append(Extra(old: nil, collection: nil))
            entries[index].extra = extra
        }
        if owned.guarded.extras[extra].collection == nil {
            let collection = change()
            owned.guarded.extras[extra].collection = collection
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
        guard var taken = ThreadContext.withCurrent(endOutermost) else { return }
        for index in taken.entries.indices {
            deliver(taken.entries[index], extras: taken.extras)
            taken.entries[index].info.release()
        }
        // (Emptied from the end, keeping the storage: `removeAll(keepingCapacity:)` costs more for a few.)
        while !taken.entries.isEmpty { taken.entries.removeLast() }
        if !taken.extras.isEmpty { taken.extras.removeAll(keepingCapacity: true) }
        ThreadContext.withCurrent { context in
            context.withTransactionState(as: TransactionChanges.self, make: TransactionChanges.init) { transaction in
                if transaction.owned.guarded.entries.isEmpty, transaction.owned.guarded.extras.isEmpty {
                    swap(&transaction.owned.guarded.entries, &taken.entries)
                    swap(&transaction.owned.guarded.extras, &taken.extras)
                }
            }
        }
    }

    /// Ends a transaction on the thread whose context is `context`: when it is the outermost, the thread's
    /// transaction is over and its entries and their extras are taken out (nil: none, or not the outermost).
    private static func endOutermost(_ context: ThreadContext) -> (entries: [Entry], extras: [Extra])? {
        context.withTransactionState(as: TransactionChanges.self, make: TransactionChanges.init) { transaction in
            transaction.owned.guarded.depth -= 1
            guard transaction.owned.guarded.depth == 0 else { return nil }
            context.inTransaction = false
            context.transactionDeferredAny = false
            context.quietSlot = nil
            ThreadModes.running.wrappingSubtract(1, ordering: .relaxed)
            if transaction.owned.guarded.entries.isEmpty { return nil }
            if !transaction.owned.guarded.positions.isEmpty { transaction.owned.guarded.positions.removeAll() }
            var taken: (entries: [Entry], extras: [Extra]) = ([], [])
            // Counted out before any is delivered: a change a callback makes on this thread is delivered as
            // usual. (Only when one replaced a link: the loop costs a retain and release of the array.)
            if transaction.owned.guarded.replacedLinks {
                transaction.owned.guarded.replacedLinks = false
                for entry in transaction.owned.guarded.entries { entry.countOut() }
            }
            swap(&taken.entries, &transaction.owned.guarded.entries)
            if !transaction.owned.guarded.extras.isEmpty { swap(&taken.extras, &transaction.owned.guarded.extras) }
            return taken
        }
    }

    /// The record of one registration's changes.
    @inline(__always)
    private static func deliver(_ entry: Entry, extras: [Extra]) {
        // (A set's change of a direct registration, its value kept as bytes: as a set delivers.)
        if entry.extra < 0, entry.field >= 0, !entry.includesDeath, let type = entry.oldType {
            return entry.info.with {
                $0.deliverDeferredDirect(old: entry.oldBytes, type: type, size: entry.oldSize, field: entry.field)
            }
        }
        deliverBoxed(entry, extras: extras)
    }

    /// `deliver`, with the old value boxed.
    @inline(never)
    private static func deliverBoxed(_ entry: Entry, extras: [Extra]) {
        let collection = entry.changes == 1 && entry.extra >= 0 ? extras[entry.extra].collection : nil
        entry.info.with { info in
            if collection == nil, entry.field >= 0, !entry.includesDeath, let type = entry.oldType {
                let old = entry.oldBytes
                return info.deliverDeferredDirect(old: old, type: type, size: entry.oldSize, field: entry.field)
            }
            var old: Any? = entry.extra >= 0 ? extras[entry.extra].old : nil
            if let type = entry.oldType {
                let boxed: Any = entry.oldBytes.withAddress { $0.loadBoxed(as: type) }
                old = boxed
            }
            if entry.includesDeath {
                ThreadContext.announcingDeath { info.deliverDeferred(old: old, collection: collection) }
            } else {
                info.deliverDeferred(old: old, collection: collection)
            }
        }
    }
}
