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
/// registrar removes every registration on it and tells their owners that the object is gone.
///
/// It has no public methods: ``Observed`` and the manual notification methods of
/// ``KeyValueObservable`` drive it.
public final class KVORegistrar: @unchecked Sendable {  // the table is guarded by `spinLock`; the flag is atomic
    @usableFromInline
    let observerFlag = Atomic<Bool>(false)
    /// Set once this registrar was found to be its object's one stored registrar (see `verifyStored(in:)`).
    private let storedVerified = Atomic<Bool>(false)
    /// The lock guarding the table, `ownerType` and `lifetimeInfos`, kept in the registrar's own memory
    /// rather than in a ``Lock`` of its own: a notification writes its word twice, and another
    /// object's lock in the same cache line would make threads changing different objects contend.
    private let spinLock = SpinLock(level: .registrar)
    // Guarded by `spinLock`, so the runtime exclusivity check is redundant (and costs on every notification).
    /// The table's first entry, kept in the registrar's own memory: most observed objects have one
    /// observed slot, which then costs no allocation. (Entry 0 of the table; nil only when it is empty.)
    @exclusivity(unchecked) private var firstSlot: SlotEntry?
    /// The table's other entries (entries 1…).
    @exclusivity(unchecked) private var slots: [SlotEntry] = []
    /// The class of the object that owns this registrar, once a read reported it: names its fields.
    @exclusivity(unchecked) private var ownerType: AnyObject.Type?
    /// Registrations rooted at this object that read none of its slots: ended when it deinitialises.
    @exclusivity(unchecked) private var lifetimeInfos: [KVOInfo] = []

    /// Never read: with the fields above, keeps what is allocated after this registrar (often the next
    /// observed object) out of the cache line of the lock word.
    private let padding: Int = 0

    /// Creates an empty registrar.
    public init() {}

    deinit {
        let (entries, rooted) = spinLock.withLock {
            let taken = ((firstSlot.map { [$0] } ?? []) + slots, lifetimeInfos)
            firstSlot = nil
            slots = []
            lifetimeInfos = []
            return taken
        }
        KVODispatcher.shared.objectDidDeinit(entries.lazy.flatMap(\.infos) + rooted, registrar: ObjectIdentifier(self))
    }

    /// Stops the program unless this registrar is `object`'s one stored registrar: a computed
    /// `kvoRegistrar` (the compiler's "add stubs" fix-it) makes a new one on each read, which nothing
    /// could announce through, and which registrations would point at after it is freed. Checked at
    /// the first registration or tracked read that involves it; afterwards one atomic load.
    @inline(__always)
    func verifyStored(in object: AnyObject) {
        if !storedVerified.load(ordering: .relaxed) { verifyStoredOnce(in: object) }
    }

    @inline(never)
    private func verifyStoredOnce(in object: AnyObject) {
        guard let observable = object as? any KeyValueObservable else { return }
        let again = observable.kvoRegistrar
        guard again === self else {
            let typeName = String(describing: type(of: object))
            fatalError(
                "KVOMediator: \(typeName).kvoRegistrar returned a different KVORegistrar each time it was read, so "
                    + "no change of a \(typeName) could ever be announced. It must be one registrar stored in the "
                    + "object: declare it as `let kvoRegistrar = KVORegistrar()`, not as a computed property such as "
                    + "`var kvoRegistrar: KVORegistrar { KVORegistrar() }`."
            )
        }
        storedVerified.store(true, ordering: .relaxed)
    }

    /// True while any registration depends on a slot of this object: the setter's fast-path check.
    @inlinable
    var _hasObservers: Bool {
        observerFlag.load(ordering: .acquiring)
    }
}

/// The registrations that depend on one slot.
struct SlotEntry {
    var slot: SlotKey
    /// For an `@Observed` property read through a typed key path, that key path (which names the
    /// property precisely enough to tell a plain chain from a computed property).
    var wrapped: AnyKeyPath?
    var infos: InlineList<KVOInfo>
}

// MARK: - The table

extension KVORegistrar {
    /// The index of the entry for `slot` (0 is `firstSlot`, i is `slots[i - 1]`). Must be called with
    /// `spinLock` held, as must every method of the table below.
    private func entryIndex(for slot: SlotKey) -> Int? {
        switch slot {
        case .field(let offset):
            if case .field(offset)? = firstSlot?.slot { return 0 }
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

    /// Changes the entry at `index` in place.
    @inline(__always)
    private func updateEntry(at index: Int, _ body: (inout SlotEntry) -> Void) {
        if index == 0 { body(&firstSlot!) } else { body(&slots[index - 1]) }
    }

    /// The registrations of the entry at `index`.
    @inline(__always)
    private func infos(at index: Int) -> InlineList<KVOInfo> {
        index == 0 ? firstSlot?.infos ?? InlineList() : slots[index - 1].infos
    }

    /// The only registration of the entry at `index`, if it has one only, unretained.
    @inline(__always)
    private func unretainedOnlyInfo(at index: Int) -> Unmanaged<KVOInfo>? {
        index == 0 ? firstSlot?.infos.unretainedOnly : slots[index - 1].infos.unretainedOnly
    }

    private func appendEntry(_ entry: SlotEntry) {
        if firstSlot == nil { firstSlot = entry } else { slots.append(entry) }
    }

    /// Removes the entry at `index`; true when the table is then empty.
    private func removeEntry(at index: Int) -> Bool {
        if index == 0 {
            firstSlot = slots.popLast()
        } else {
            slots.remove(at: index - 1)
        }
        return firstSlot == nil
    }

    func add(_ info: KVOInfo, for access: Access) {
        spinLock.withLock {
            if ownerType == nil, let objectType = access.objectType { ownerType = objectType }
            if access.slot == .lifetime {
                lifetimeInfos.append(info)
                return
            }
            if let index = entryIndex(for: access.slot) {
                updateEntry(at: index) { entry in
                    if entry.wrapped == nil { entry.wrapped = access.wrapped }
                    if !entry.infos.contains(where: { $0 === info }) {
                        entry.infos.append(info)
                    }
                }
                return
            }
            appendEntry(SlotEntry(slot: access.slot, wrapped: access.wrapped, infos: InlineList(info)))
            observerFlag.store(true, ordering: .releasing)
        }
    }

    func remove(_ info: KVOInfo, for slot: SlotKey) {
        spinLock.withLock {
            if slot == .lifetime {
                lifetimeInfos.removeAll { $0 === info }
                return
            }
            guard let index = entryIndex(for: slot) else { return }
            var isEmpty = false
            updateEntry(at: index) { entry in
                // Removal is usually of the newest registration (controllers tear down in order), so search from the end.
                if let position = entry.infos.lastIndex(where: { $0 === info }) {
                    entry.infos.remove(at: position)
                }
                isEmpty = entry.infos.isEmpty
            }
            if isEmpty, removeEntry(at: index) {
                observerFlag.store(false, ordering: .releasing)
            }
        }
    }

    func infos(for slot: SlotKey) -> InlineList<KVOInfo> {
        spinLock.withLock {
            guard let index = entryIndex(for: slot) else { return InlineList() }
            return infos(at: index)
        }
    }

    /// The property name of a slot (for `@Observed` properties) and the typed key path that read it.
    func describe(_ slot: SlotKey) -> (name: String?, wrapped: AnyKeyPath?) {
        spinLock.withLock {
            guard case .field(let offset) = slot else { return (nil, nil) }
            let name = ownerType.flatMap { ObservedFields.name(at: offset, in: $0) }
            return (name, entryIndex(for: slot).flatMap { $0 == 0 ? firstSlot?.wrapped : slots[$0 - 1].wrapped })
        }
    }

    /// How many registrations depend on this object, over all slots (for tests and descriptions).
    var registrationCount: Int {
        spinLock.withLock {
            slots.reduce(lifetimeInfos.count + (firstSlot?.infos.count ?? 0)) { $0 + $1.infos.count }
        }
    }
}
// MARK: - Announcements

/// A change in progress for one registration: what was captured before the change.
struct PendingChange {
    let info: KVOInfo
    let captured: CapturedValue
}

/// An old value captured before a change, boxed because registrations differ in value type.
enum CapturedValue {
    /// Nothing was captured: the registration did not ask for the old value.
    case none
    /// The value read before the change.
    case value(Any)
}

/// Serialises getters' locating of their storage, which unoptimised code does with a modifying access.
private let fieldLocating = Lock()

/// How many collection mutations are writing their storage right now, on any thread: while none is,
/// a set need not look up whether this thread's write is one of theirs.
private let collectionMutationsInProgress = Atomic<Int>(0)

extension KVORegistrar {
    /// True while some thread tracks reads: only then need a getter report its read.
    @inlinable
    static var _isTracking: Bool {
        trackersRunning.load(ordering: .relaxed) != 0
    }

    /// True while this thread tracks reads (an observation is being set up or re-evaluated on it).
    @usableFromInline
    var _isTrackingOnThisThread: Bool {
        ThreadContext.currentIfPresent?.tracker != nil
    }

    /// Brackets a getter's locating of its storage (see `Observed`): one thread at a time.
    @usableFromInline
    static func _beginLocatingField() {
        fieldLocating.lock()
    }

    @usableFromInline
    static func _endLocatingField() {
        fieldLocating.unlock()
    }

    /// Reports a read of the `@Observed` property whose storage is at `field` in `object`, read
    /// through `wrapped`, to the tracker active on this thread, if any.
    @usableFromInline
    func _access(_ wrapped: AnyKeyPath, field: Int, of object: AnyObject) {
        guard let tracker = ThreadContext.currentIfPresent?.tracker else { return }
        verifyStored(in: object)
        tracker.record(Access(registrar: self, slot: .field(field), wrapped: wrapped, objectType: type(of: object)))
    }

    /// Reports a read of a property with custom storage, named by `keyPath` (``KeyValueObservable/accessValue(for:)``).
    func access(customStorage keyPath: AnyKeyPath, of object: AnyObject) {
        guard let tracker = ThreadContext.currentIfPresent?.tracker else { return }
        verifyStored(in: object)
        tracker.record(Access(registrar: self, slot: .keyPath(keyPath), objectType: type(of: object)))
    }

    /// Reports a read of the `@Observed` property whose storage is at `field` in `object`, read by name
    /// (string key paths).
    func access(field: Int, of object: AnyObject) {
        guard let tracker = ThreadContext.currentIfPresent?.tracker else { return }
        verifyStored(in: object)
        tracker.record(Access(registrar: self, slot: .field(field), objectType: type(of: object)))
    }

    /// An `@Observed` set: sends prior records and captures what needs capturing, runs `store`, then
    /// delivers the change to each registration of the slot.
    ///
    /// The values are passed by address with their type, so that no generic code runs here.
    @usableFromInline
    func _change(
        field: Int,
        of object: AnyObject,
        oldValue: UnsafeRawPointer,
        newValue: UnsafeRawPointer,
        type: Any.Type,
        store: () -> Void
    ) {
        // A collection mutation announces this write itself.
        if isSuppressedOnThisThread { return store() }
        spinLock.lock()
        // The first entry inline: the common case of one observed slot, with no call.
        let firstMatches = if case .field(field)? = firstSlot?.slot { true } else { false }
        guard let index = firstMatches ? 0 : entryIndex(for: .field(field)) else {
            spinLock.unlock()
            return store()
        }
        // The common case: one registration of exactly this property. It enters its gate under the
        // lock, where the table still holds it; inside the gate it stays allocated (see `KVOInfo`),
        // so it is used from here on with no reference counting and no copy of the table.
        if let single = unretainedOnlyInfo(at: index) {
            let entered = single._withUnsafeGuaranteedRef { $0.isDirect && $0.tryEnter() }
            if entered {
                spinLock.unlock()
                single._withUnsafeGuaranteedRef { info in
                    info.setDirect(object: object, oldValue: oldValue, newValue: newValue, type: type, store: store)
                }
                return
            }
        }
        let infos = infos(at: index)
        spinLock.unlock()
        if infos.isEmpty { return store() }
        var captured: [CapturedValue?] = []
        captured.reserveCapacity(infos.count)
        for info in infos {
            if info.isDirect {
                info.priorDirect(object: object, oldValue: oldValue, type: type)
                captured.append(nil)
            } else {
                captured.append(info.captureBeforeChange())
            }
        }
        store()
        for (info, captured) in zip(infos, captured) {
            if let captured {
                info.changeEvaluated(captured: captured)
            } else {
                info.changeDirect(object: object, oldValue: oldValue, newValue: newValue, type: type)
            }
        }
    }

    /// The reads of this object's slots that evaluating `keyPath` makes (its own slots, found by probing).
    func accesses<Object: KeyValueObservable, Value>(
        readBy keyPath: KeyPath<Object, Value>,
        on object: Object
    ) -> [Access] {
        AccessTracker.probe(keyPath, on: object).filter { $0.registrar === self }
    }

    /// The registrations on the slots `keyPath` reads; a key path that reads none of this object's
    /// slots is taken as a slot itself (custom storage announced before any read).
    private func infos<Object: KeyValueObservable, Value>(
        readBy keyPath: KeyPath<Object, Value>,
        on object: Object
    ) -> [KVOInfo] {
        infos(readBy: accesses(readBy: keyPath, on: object), keyPath: keyPath)
    }

    /// The registrations on the slots of `accesses`, the reads `keyPath` makes (see above).
    private func infos(readBy accesses: [Access], keyPath: AnyKeyPath) -> [KVOInfo] {
        if accesses.isEmpty { return Array(infos(for: .keyPath(keyPath))) }
        var result: [KVOInfo] = []
        for access in accesses {
            for info in infos(for: access.slot) where !result.contains(where: { $0 === info }) {
                result.append(info)
            }
        }
        return result
    }

    /// Whether this thread's writes to this object are being announced by a collection mutation.
    private var isSuppressedOnThisThread: Bool {
        collectionMutationsInProgress.load(ordering: .relaxed) > 0
            && ThreadContext.currentIfPresent?.suppressedRegistrar == ObjectIdentifier(self)
    }

    func manualWillChange<Object: KeyValueObservable, Value>(of object: Object, keyPath: KeyPath<Object, Value>) {
        guard _hasObservers, !isSuppressedOnThisThread else { return }
        let pending = infos(readBy: keyPath, on: object).map { info in
            PendingChange(info: info, captured: info.captureBeforeChange())
        }
        ThreadContext.current.pendingManualChanges.append(
            ManualChange(registrar: self, keyPath: keyPath, pending: pending)
        )
    }

    func manualDidChange(keyPath: AnyKeyPath) {
        guard let context = ThreadContext.currentIfPresent,
            let index = context.pendingManualChanges.lastIndex(where: {
                $0.registrar === self && sameKeyPath($0.keyPath, keyPath)
            }
            )
        else { return }
        let change = context.pendingManualChanges.remove(at: index)
        for pending in change.pending {
            pending.info.changeEvaluated(captured: pending.captured)
        }
    }

    /// Applies a collection mutation to the storage behind `keyPath`, announcing it with its kind and indexes.
    ///
    /// Direct registrations of the collection get `kind`, `indexes` and the removed/inserted elements;
    /// registrations that re-read their key path (chains, computed properties) get a setting.
    func mutateCollection<Object: KeyValueObservable, Collection>(
        of object: Object,
        keyPath: ReferenceWritableKeyPath<Object, Collection>,
        kind: KVOChangeKind,
        indexes: IndexSet?,
        removed: Collection?,
        inserted: Collection?,
        apply: (inout Collection) -> Void
    ) {
        guard _hasObservers else {
            apply(&object[keyPath: keyPath])
            return
        }
        let accesses = accesses(readBy: keyPath, on: object)
        // An `@Observed(automaticallyNotifies: false)` collection is announced by its owner, as its sets
        // are (Cocoa's proxies do not announce when `automaticallyNotifiesObservers(forKey:)` is false).
        // (One read of a slot whose wrapped property is of this collection's type: its storage is an
        // `Observed<Collection>`, also when the proxy's key path is rooted at a subclass.)
        if accesses.count == 1, case .field(let offset) = accesses[0].slot,
            let wrapped = accesses[0].wrapped, type(of: wrapped).valueType == Collection.self,
            !Observed<Collection>.notifiesAutomatically(field: offset, of: object)
        {
            apply(&object[keyPath: keyPath])
            return
        }
        let infos = infos(readBy: accesses, keyPath: keyPath)
        var captured: [CapturedValue?] = []
        // Only registrations of exactly this collection get its kind and indexes; the rest re-read.
        for info in infos {
            if info.isDirect, sameKeyPath(info.keyPath, keyPath) {
                info.priorCollection(object: object, kind: kind, indexes: indexes, oldElements: removed)
                captured.append(nil)
            } else {
                captured.append(info.captureBeforeChange())
            }
        }
        let context = ThreadContext.current
        let outer = context.suppressedRegistrar
        context.suppressedRegistrar = ObjectIdentifier(self)
        collectionMutationsInProgress.wrappingAdd(1, ordering: .relaxed)
        apply(&object[keyPath: keyPath])
        collectionMutationsInProgress.wrappingSubtract(1, ordering: .relaxed)
        context.suppressedRegistrar = outer
        for (info, captured) in zip(infos, captured) {
            if let captured {
                info.changeEvaluated(captured: captured)
            } else {
                info.changeCollection(
                    object: object,
                    kind: kind,
                    indexes: indexes,
                    oldElements: removed,
                    newElements: inserted
                )
            }
        }
    }
}
