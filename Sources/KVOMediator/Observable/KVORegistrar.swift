import Foundation
import Synchronization

/// The per-object table of observations: every ``KeyValueObservable`` object owns one.
///
/// ```swift
/// final class Person: KeyValueObservable {
///     let kvoRegistrar = KVORegistrar()
///     @Observed var name = ""
/// }
/// ```
///
/// The registrar maps each observable slot of its object (an `@Observed` property or a key path
/// reported by `accessValue(for:)`) to the registrations that depend on it, behind a lock of its
/// own, so threads changing different objects never contend. When the object deinitialises, the
/// registrar removes every registration on it and hands them to the dispatcher, which ends them.
///
/// It has no public methods: ``Observed`` and the manual notification methods of
/// ``KeyValueObservable`` drive it.
public final class KVORegistrar: @unchecked Sendable {  // `state`, `weakLinks`: guarded by `spinLock`; flags: atomic
    /// Not 0 while any registration depends on a slot of this object (a byte, not a `Bool`: the setter
    /// then tests it with one compare). Its bit `_quietHint`, beside, says that a transaction may have a
    /// quiet slot here (see `_storesQuietly(field:)`).
    @usableFromInline
    let observerFlag = Atomic<UInt8>(0)
    /// Set once this registrar was found to be its object's one stored registrar (see `verifyStored(in:)`).
    let storedVerified = Atomic<Bool>(false)
    /// A stamp (`ThreadContext.nextStamp()`, unique in the process) taken anew whenever a registration is
    /// added here: a transaction's quiet slot is valid while it is unchanged (see `storesQuietly(field:)`).
    /// No two registrars share one (0 before the first add), so the slot names its registrar by address.
    let registrationsAdded = Atomic<UInt64>(0)
    /// The lock guarding `state`, kept in the registrar's own memory rather than in a ``Lock`` of its
    /// own: a notification writes its word twice, and another object's lock in the same cache line
    /// would make threads changing different objects contend.
    private let spinLock = SpinLock(level: .registrar)
    /// Guarded by `spinLock`, so the runtime exclusivity check is redundant (and costs on every notification).
    @exclusivity(unchecked) private var state = State()

    /// The links of the `@ObservedWeak` properties holding this object, told when it deinitialises;
    /// guarded by `spinLock`, and never touched on a notification path.
    @exclusivity(unchecked) private var weakLinks: [WeakLink] = []
    /// The object's part in Swift's Observation, made at its first read reported there (only a class
    /// that conforms to `Observable` reports reads); written once.
    @usableFromInline
    let observationBridge = OnceReference<ObservationBridge>()

    /// Everything the lock guards: the table of slots and their registrations.
    struct State {
        typealias Entry = SlotEntry

        /// The table's first entry, kept in the registrar's own memory: most observed objects have one
        /// observed slot, which then costs no allocation. (Entry 0; nil only when the table is empty.)
        var firstSlot: Entry?
        /// The table's other entries (entries 1…).
        var slots: [Entry] = []
        /// With many entries, where each `@Observed` property's entry is in `slots`: an open-addressing
        /// table of positions + 1 (0: empty), probed from a hash of the field's offset, so that a set
        /// of one of a hundred observed properties finds its entry as fast as of one. Empty below
        /// `fieldIndexThreshold` entries, where a scan is as fast.
        var fieldIndex: [Int32] = []
        static let fieldIndexThreshold = 8
        /// The class of the object that owns this registrar, once a read reported it: names its fields.
        var ownerType: AnyObject.Type?
        /// Registrations rooted at this object that read none of its slots: ended when it deinitialises.
        var lifetimeInfos: [SlotObserver] = []

        /// The index of the entry for `slot` (0 is `firstSlot`, i is `slots[i - 1]`).
        @inline(__always)
        func entryIndex(for slot: SlotKey) -> Int? {
            switch slot {
            case .field(let offset):
                if case .field(offset)? = firstSlot?.slot { return 0 }
                if !fieldIndex.isEmpty { return indexedEntry(forField: offset) }
                return slots.firstIndex { if case .field(offset) = $0.slot { true } else { false } }.map { $0 + 1 }
            case .keyPath(let keyPath):
                if case .keyPath(let other)? = firstSlot?.slot, other === keyPath { return 0 }
                if let index = slots.firstIndex(where: {
                    if case .keyPath(let other) = $0.slot { other === keyPath } else { false }
                }) {
                    return index + 1
                }
                if firstSlot?.slot == slot { return 0 }
                return slots.firstIndex { $0.slot == slot }.map { $0 + 1 }
            case .lifetime:
                return nil
            }
        }

        @inline(__always)
        mutating func updateEntry(at index: Int, _ body: (inout Entry) -> Void) {
            if index == 0 { body(&firstSlot!) } else { body(&slots[index - 1]) }
        }

        @inline(__always)
        func entry(at index: Int) -> Entry {
            index == 0 ? firstSlot! : slots[index - 1]
        }

        /// The only registration of the entry at `index`, if it has one only, unretained.
        @inline(__always)
        func unretainedOnlyInfo(at index: Int) -> Unretained<SlotObserver>? {
            index == 0 ? firstSlot?.infos.unretainedOnly : slots[index - 1].infos.unretainedOnly
        }

        /// Adds `info` to the slot `access` read; true when the table was empty before.
        @inline(__always)
        mutating func add(_ info: SlotObserver, for access: Access) -> Bool {
            if ownerType == nil, let objectType = access.objectType { ownerType = objectType }
            if access.slot == .lifetime {
                lifetimeInfos.append(info)
                return false
            }
            if let index = entryIndex(for: access.slot) {
                // (No check for `info` being there already: a registration subscribes to a slot only
                // when its own dependency list did not have it, so M registrations add in O(1).)
                updateEntry(at: index) { entry in
                    if entry.wrapped == nil { entry.wrapped = access.wrapped }
                    entry.infos.append(info)
                }
                return false
            }
            let entry = Entry(slot: access.slot, wrapped: access.wrapped, infos: SlotObservers(info))
            if firstSlot == nil {
                firstSlot = entry
            } else {
                slots.append(entry)
                didAppendSlot()
            }
            return true
        }

        /// Removes `info` from `slot`; true when the table is then empty.
        @inline(__always)
        mutating func remove(_ info: SlotObserver, for slot: SlotKey) -> Bool {
            if slot == .lifetime {
                lifetimeInfos.removeAll { $0 === info }
                return false
            }
            guard let index = entryIndex(for: slot) else { return false }
            var isEmpty = false
            updateEntry(at: index) { entry in
                entry.infos.remove(info)
                isEmpty = entry.infos.isEmpty
            }
            guard isEmpty else { return false }
            if index == 0 {
                if let last = slots.last {
                    removeSlot(at: slots.count - 1)
                    firstSlot = last
                } else {
                    firstSlot = nil
                }
            } else {
                removeSlot(at: index - 1)
            }
            return firstSlot == nil
        }

        /// Empties the table, returning every registration in it.
        mutating func takeAll() -> [SlotObserver] {
            var taken: [SlotObserver] = []
            if let firstSlot { taken.append(contentsOf: firstSlot.infos) }
            for entry in slots { taken.append(contentsOf: entry.infos) }
            taken.append(contentsOf: lifetimeInfos)
            self = State()
            return taken
        }
    }

    /// Creates an empty registrar.
    public init() {}

    deinit {
        let (links, taken) = spinLock.withLock { (weakLinks, state.takeAll()) }
        for info in taken { info.registrarDidDeinit(ObjectIdentifier(self)) }
        WeakLink.referentDidDeinit(links)
    }

    /// True while any registration depends on a slot of this object: the setter's fast-path check.
    @inlinable
    var _hasObservers: Bool {
        _observerFlag != 0
    }

    /// `observerFlag`, loaded as the setter's fast path does.
    @inlinable
    var _observerFlag: UInt8 {
        observerFlag.load(ordering: .acquiring)
    }

    // MARK: The table

    func add(_ info: SlotObserver, for access: Access) {
        spinLock.withLock {
            registrationsAdded.store(ThreadContext.withCurrent { $0.nextStamp() }, ordering: .releasing)
            if state.add(info, for: access) { observerFlag.store(1, ordering: .releasing) }
        }
    }

    func remove(_ info: SlotObserver, for slot: SlotKey) {
        spinLock.withLock {
            if state.remove(info, for: slot) { observerFlag.store(0, ordering: .releasing) }
        }
    }

    /// Reads the table under the lock (for the cold paths in other files).
    func withState<Result>(_ body: (State) -> Result) -> Result {
        spinLock.withLock { body(state) }
    }

    /// Edits the links of the `@ObservedWeak` properties holding this object, under the lock.
    func withWeakLinks<Result>(_ body: (inout [WeakLink]) -> Result) -> Result {
        spinLock.withLock { body(&weakLinks) }
    }

    // MARK: The notification path

    /// The entry of the `@Observed` property at `field`, for a set whose entry is not the first: kept
    /// out of `_change`'s frame, and reading the table in place (a call on `state` itself would copy
    /// it, retaining and releasing each of its arrays). Called with the lock held.
    @inline(never)
    private func entryIndexOutOfLine(forField field: Int) -> Int? {
        withUnsafeMutablePointer(to: &state) { state in
            // (The first entry was checked by the caller; with many entries, straight to their index.)
            state.pointee.fieldIndex.isEmpty
                ? state.pointee.entryIndex(for: .field(field)) : state.pointee.indexedEntry(forField: field)
        }
    }

    /// The entry of the `@Observed` property at `field`, if it has one: the first entry inline (the common
    /// case of one observed slot, with no call), any other out of line. Called with the lock held.
    @inline(__always)
    private func entryIndex(forField field: Int) -> Int? {
        let firstMatches = if case .field(field)? = state.firstSlot?.slot { true } else { false }
        return firstMatches ? 0 : entryIndexOutOfLine(forField: field)
    }

    /// The registrations on `slot` (read in place: `withState` copies the table).
    func infos(for slot: SlotKey) -> SlotObservers {
        spinLock.withLock {
            withUnsafeMutablePointer(to: &state) { state in
                guard let index = state.pointee.entryIndex(for: slot) else { return SlotObservers() }
                return index == 0 ? state.pointee.firstSlot!.infos : state.pointee.slots[index - 1].infos
            }
        }
    }

    /// The registrations of the entry at `index` (one `entryIndex` found, so index 0 is `firstSlot`'s), under
    /// `spinLock`: the list alone. Here, not on `State`: a method of the table, called on this stored
    /// property, copied the whole table, and a copy of the whole entry retained its objects too and released
    /// them again, on every change.
    @inline(__always)
    private func infosLocked(at index: Int) -> SlotObservers {
        index == 0 ? state.firstSlot.unsafelyUnwrapped.infos : state.slots[index - 1].infos
    }

    /// The typed key path that read `slot` first, if one did (read in place: `withState` copies the table).
    func wrappedKeyPath(of slot: SlotKey) -> AnyKeyPath? {
        spinLock.withLock {
            withUnsafeMutablePointer(to: &state) { state in
                guard let index = state.pointee.entryIndex(for: slot) else { return nil }
                return index == 0 ? state.pointee.firstSlot?.wrapped : state.pointee.slots[index - 1].wrapped
            }
        }
    }

    /// The one registration of a set slot re-reads (computed, a chain's link): retained, unlocked, with no
    /// array of captures (600 instructions). Out of `_change`'s frame: in it, a direct set cost 6-14 more.
    @inline(never)
    private func announceUnlocking(to info: Unretained<SlotObserver>, link: LinkChange, store: () -> Void) {
        let info = info.object
        spinLock.unlock()
        info.changeAround(link: link, store: store)
    }

    /// An `@Observed` set: sends prior records and captures what needs capturing, runs `store`, then
    /// delivers the change to each registration of the slot.
    ///
    /// The values are passed by address with their type, so that no generic code runs here.
    @usableFromInline
    func _change(
        field: Int,
        of object: AnyObject,
        oldValue: ValueAddress,
        newValue: ValueAddress,
        type: Any.Type,
        store: () -> Void
    ) {
        // (One load, while no thread mutates a collection or runs a transaction.)
        if _slowPath(ThreadModes.running.load(ordering: .relaxed) != 0) {
            return changeInAMode(
                field: field,
                of: object,
                oldValue: oldValue,
                newValue: newValue,
                type: type,
                store: store
            )
        }
        announceSet(field: field, of: object, oldValue: oldValue, newValue: newValue, type: type, store: store)
    }

    /// `_change` while some thread mutates a collection or runs a transaction: this thread's collection
    /// mutation announces this write itself; this thread's transaction defers its records, and a set of
    /// a quiet slot (see `changeInTransaction`) only stores.
    @inline(never)
    private func changeInAMode(
        field: Int,
        of object: AnyObject,
        oldValue: ValueAddress,
        newValue: ValueAddress,
        type: Any.Type,
        store: () -> Void
    ) {
        if _slowPath(Tracing.isOn.load(ordering: .relaxed)) {
            traceSet(field: field, of: object, oldValue: oldValue, newValue: newValue, type: type)
        }
        if storesQuietly(field: field) { return store() }
        guard ThreadContext.isInTransaction else {
            return announceSet(
                field: field,
                of: object,
                oldValue: oldValue,
                newValue: newValue,
                type: type,
                store: store
            )
        }
        changeInTransaction(field: field, of: object, oldValue: oldValue, newValue: newValue, type: type, store: store)
    }

    /// `_change` inside a transaction on this thread: announced as usual (each registration defers its
    /// record), and when every registration of the slot had deferred one already, the slot is quiet for
    /// the rest of the transaction: its sets tell nobody (see `storesQuietly(field:)`).
    @inline(never)
    private func changeInTransaction(
        field: Int,
        of object: AnyObject,
        oldValue: ValueAddress,
        newValue: ValueAddress,
        type: Any.Type,
        store: () -> Void
    ) {
        // (Before this thread's transaction deferred any record, none of the slot's registrations has: no
        // lock is needed to know that the slot is not quiet yet.)
        let (allDeferred, version) =
            ThreadContext.currentSays { $0.transactionDeferredAny } ? deferredAlready(field: field) : (false, 0)
        spinLock.lock()
        if notedDirectSetLocked(field: field, oldValue: oldValue, type: type) {
            spinLock.unlock()
            store()
        } else {
            // (The field tells a direct registration deferring its record where its new value will be.)
            let outerField = ThreadContext.withCurrent { context in
                defer { context.transactionSetField = field }
                return context.transactionSetField
            }
            announceSetLocked(
                field: field,
                of: object,
                oldValue: oldValue,
                newValue: newValue,
                type: type,
                store: store
            )
            ThreadContext.withCurrent { $0.transactionSetField = outerField }
        }
        if allDeferred, version != 0, !ThreadContext.isAnnouncingDeath {
            ThreadContext.withCurrent { $0.quietSlot = (ObjectIdentifier(self), field, version) }
            // (Only on a flag that says "observed": a hint on an unobserved object would send its sets
            // down the setter's slow path.)
            _ = observerFlag.compareExchange(expected: 1, desired: 1 | Self._quietHint, ordering: .relaxed)
        }
    }

    /// In this thread's transaction, with the lock held, a set of a slot whose one registration takes the
    /// setter's values and notes the set itself under the lock, which holds it (a direct registration:
    /// `notedSetInTransaction`): whether it did. Then the set only stores: no pass or gate, no prior record
    /// (that goes at the end).
    @inline(__always)
    private func notedDirectSetLocked(field: Int, oldValue: ValueAddress, type: Any.Type) -> Bool {
        guard let index = entryIndex(forField: field), let single = state.unretainedOnlyInfo(at: index) else {
            return false
        }
        return single.with {
            $0.strategy(forField: field, of: self).takesSetterValues
                && $0.notedSetInTransaction(field: field, old: oldValue, type: type)
        }
    }

    /// Enters the gate of `single`, the one registration of a slot, with the lock held, and releases the
    /// lock: through this thread's pass (see `GatePasses`), else by the count. True through the pass (it
    /// leaves with `leave(passed: true)`), false by the count; nil when cancelled (the only registration
    /// here: nobody to tell). Inside the gate it stays allocated (see `KVOInfo`), so it is used from here on
    /// with no reference counting and no copy of the table.
    @inline(__always)
    private func enterUnlocking(_ single: Unretained<SlotObserver>) -> Bool? {
        let entry = single.with { $0.tryPass() }
        if _slowPath(entry == .refused) {
            spinLock.unlock()
            single.with { $0.givePassBack() }
            return nil
        }
        let passed = entry == .entered
        guard passed || single.with({ $0.tryEnter() }) else {
            spinLock.unlock()
            return nil
        }
        spinLock.unlock()
        return passed
    }

    /// The registrations of the `@Observed` property at `field`, as a change of it is announced to them.
    enum FieldObservers {
        /// Its one registration, which qualified, inside its gate (see `enterUnlocking`).
        case entered(Unretained<SlotObserver>, passed: Bool)
        /// Its registrations otherwise: none, several, or one that did not qualify (a cancelled one is none).
        case listed(SlotObservers)
    }

    /// The registrations of the `@Observed` collection at `field`, found under one taking of the lock: its one
    /// registration entered into its gate there, as a set's is (see `announceSetLocked`), if it is the only
    /// one and takes the collection's kind (`takesCollectionKind`, asked under the lock); else the list.
    @inline(__always)
    func observers(ofCollectionAt field: Int, keyPath: AnyKeyPath, slotKey: LeafWord) -> FieldObservers {
        spinLock.lock()
        guard let index = entryIndex(forField: field) else {
            spinLock.unlock()
            return .listed(SlotObservers())
        }
        if let single = state.unretainedOnlyInfo(at: index),
            single.with({ takesCollectionKind($0, keyPath: keyPath, slotKey: slotKey) })
        {
            guard let passed = enterUnlocking(single) else { return .listed(SlotObservers()) }
            return .entered(single, passed: passed)
        }
        let infos = infosLocked(at: index)
        spinLock.unlock()
        return .listed(infos)
    }

    /// Whether every registration of the slot at `field` has deferred a record in this thread's transaction
    /// already, and the count of registrations added then.
    private func deferredAlready(field: Int) -> (Bool, UInt64) {
        spinLock.withLock {
            let version = registrationsAdded.load(ordering: .relaxed)
            guard let index = entryIndex(forField: field) else { return (false, version) }
            // (One registration read in place; several through a copy of the list, rarer.)
            if let single = state.unretainedOnlyInfo(at: index) {
                return (single.with { $0.isDeferredInTransaction }, version)
            }
            let infos = infosLocked(at: index)
            return (!infos.isEmpty && infos.allUnretained { $0.isDeferredInTransaction }, version)
        }
    }

    /// The bit of `observerFlag` that says a transaction may have a quiet slot on this object: a hint,
    /// which a set clears when no transaction runs; a set that misses it takes the longer way to the same
    /// answer (`changeInAMode`).
    @inlinable
    static var _quietHint: UInt8 { 2 }

    /// Whether a set of the `@Observed` property at `field` only stores, asked by the setter before it
    /// captures anything, when the quiet hint is set (a test of the flag it loaded anyway).
    @usableFromInline
    @inline(never)
    func _storesQuietly(field: Int) -> Bool {
        storesQuietlyWhenHinted(field: field)
    }

    /// `_storesQuietly(field:)`, inlined where a set asks it (see also `_setHintedTrivial`).
    @inline(__always)
    func storesQuietlyWhenHinted(field: Int) -> Bool {
        // (A set that a collection mutation announces itself is told apart further on, in `changeInAMode`;
        // a traced set is reported there too.)
        if !Tracing.isOn.load(ordering: .relaxed), storesQuietly(field: field, orSuppressed: false) { return true }
        if ThreadModes.running.load(ordering: .relaxed) == 0 {
            _ = observerFlag.compareExchange(expected: 1 | Self._quietHint, desired: 1, ordering: .relaxed)
        }
        return false
    }

    /// Whether a set of the `@Observed` property at `field` only stores: one that this thread's collection
    /// mutation announces itself, or a set of this thread's quiet slot: a slot whose every registration
    /// its transaction has deferred already, with no registration added since (unless it announces a
    /// weak referent's death, which is noted as one whatever it sets). One look at this thread's context.
    @inline(__always)
    private func storesQuietly(field: Int, orSuppressed: Bool = true) -> Bool {
        ThreadContext.currentSays { context in
            if orSuppressed, context.suppressedRegistrar == ObjectIdentifier(self) { return true }
            // (A quiet slot is one of this thread's transaction, never noted while a weak referent's death is
            // announced: see `changeInTransaction`, `ThreadContext.announcingDeath`.)
            guard let quiet = context.quietSlot, quiet.registrar == ObjectIdentifier(self), quiet.field == field
            else { return false }
            return quiet.version == registrationsAdded.load(ordering: .acquiring)
        }
    }

    /// `_change`'s announcement (see there).
    @inline(__always)
    private func announceSet(
        field: Int,
        of object: AnyObject,
        oldValue: ValueAddress,
        newValue: ValueAddress,
        type: Any.Type,
        store: () -> Void
    ) {
        spinLock.lock()
        announceSetLocked(field: field, of: object, oldValue: oldValue, newValue: newValue, type: type, store: store)
    }

    /// `announceSet` with the lock held, which it gives back.
    @inline(__always)
    private func announceSetLocked(
        field: Int,
        of object: AnyObject,
        oldValue: ValueAddress,
        newValue: ValueAddress,
        type: Any.Type,
        store: () -> Void
    ) {
        guard let index = entryIndex(forField: field) else {
            spinLock.unlock()
            return store()
        }
        // The common case: one registration of exactly this property, entered into its gate under the lock,
        // where the table still holds it (`enterUnlocking`).
        if let single = state.unretainedOnlyInfo(at: index) {
            let strategy = single.with { $0.strategy(forField: field, of: self) }
            guard strategy.takesSetterValues else {
                let link = LinkChange(object, self, field, (oldValue, newValue), type, strategy)
                return announceUnlocking(to: single, link: link, store: store)
            }
            guard let passed = enterUnlocking(single) else { return store() }
            return single.with { info in
                info.setDirect(
                    object: object,
                    oldValue: oldValue,
                    newValue: newValue,
                    type: type,
                    passed: passed,
                    store: store
                )
            }
        }
        let infos = infosLocked(at: index)
        spinLock.unlock()
        if infos.isEmpty { return store() }
        let slotKey = LeafWord.slot(self, field: field)
        // Many registrations that all take the setter's values (the direct ones and chains ending here):
        // told from the values alone, with nothing captured.
        // (Unretained: `infos` holds them.)
        if infos.allUnretained({ $0.takesValues(ofSlot: slotKey) }) {
            // Prior records only if one is asked for (most registrations ask for none): no call per registration.
            if !infos.allUnretained({ !$0.sendsPriorRecords }) {
                infos.forEachUnretained {
                    $0.with { $0.priorDirect(object: object, oldValue: oldValue, newValue: newValue, type: type) }
                }
            }
            store()
            infos.forEachUnretained {
                $0.with { $0.changeDirect(object: object, oldValue: oldValue, newValue: newValue, type: type) }
            }
            return
        }
        let captured = announceBefore(to: infos) { info in
            guard info.takesValues(ofSlot: slotKey) else { return false }
            info.priorDirect(object: object, oldValue: oldValue, newValue: newValue, type: type)
            return true
        }
        store()
        announceAfter(to: infos, captured: captured) { info in
            info.changeDirect(object: object, oldValue: oldValue, newValue: newValue, type: type)
        }
    }
}
