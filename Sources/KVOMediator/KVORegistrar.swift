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
public final class KVORegistrar: @unchecked Sendable {  // `slots` is guarded by `lock`; the flag is atomic
    @usableFromInline
    let observerFlag = Atomic<Bool>(false)
    private let lock = Lock()
    private var slots: [SlotEntry] = []

    /// Creates an empty registrar.
    public init() {}

    deinit {
        let entries = lock.withLock {
            let entries = slots
            slots = []
            return entries
        }
        let me = ObjectIdentifier(self)
        for entry in entries {
            for info in entry.infos {
                info.registrarDidDeinit(me)
            }
        }
    }

    /// True while any registration depends on a slot of this object: the setter's fast-path check.
    @inlinable
    var _hasObservers: Bool {
        observerFlag.load(ordering: .acquiring)
    }
}

/// The registrations that depend on one slot.
struct SlotEntry {
    let slot: AnyKeyPath
    let storage: AnyKeyPath?
    var infos: [KVOInfo]
}

// MARK: - The table

extension KVORegistrar {
    func add(_ info: KVOInfo, for access: Access) {
        lock.withLock {
            if let index = slots.firstIndex(where: { $0.slot === access.slot || $0.slot == access.slot }) {
                if !slots[index].infos.contains(where: { $0 === info }) {
                    slots[index].infos.append(info)
                }
            } else {
                slots.append(SlotEntry(slot: access.slot, storage: access.storage, infos: [info]))
                observerFlag.store(true, ordering: .releasing)
            }
        }
    }

    func remove(_ info: KVOInfo, for slot: AnyKeyPath) {
        lock.withLock {
            guard let index = slots.firstIndex(where: { $0.slot === slot || $0.slot == slot }) else { return }
            // Removal is usually of the newest registration (controllers tear down in order), so search from the end.
            if let position = slots[index].infos.lastIndex(where: { $0 === info }) {
                slots[index].infos.remove(at: position)
            }
            if slots[index].infos.isEmpty {
                slots.remove(at: index)
                if slots.isEmpty {
                    observerFlag.store(false, ordering: .releasing)
                }
            }
        }
    }

    func infos(for slot: AnyKeyPath) -> [KVOInfo] {
        lock.withLock {
            for entry in slots where entry.slot === slot {
                return entry.infos
            }
            for entry in slots where entry.slot == slot {
                return entry.infos
            }
            return []
        }
    }

    /// The property name of a slot, when the wrapper's storage key path gave one (`\Person._name` → `name`).
    func name(of slot: AnyKeyPath) -> String? {
        let storage = lock.withLock { slots.first(where: { $0.slot == slot })?.storage }
        return storage.flatMap(propertyName(fromStorage:))
    }

    /// How many registrations depend on this object, over all slots (for tests and descriptions).
    var registrationCount: Int {
        lock.withLock { slots.reduce(0) { $0 + $1.infos.count } }
    }
}

/// `\Person._name` → `name`: the property name behind an `@Observed` wrapper's storage key path.
func propertyName(fromStorage storage: AnyKeyPath) -> String? {
    let description = String(describing: storage)
    guard let dot = description.lastIndex(of: ".") else { return nil }
    let field = description[description.index(after: dot)...]
    guard field.hasPrefix("_"), !field.contains("<") else { return nil }
    return String(field.dropFirst())
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

/// What a wrapper setter carries from `_willChange` to `_didChange`.
@usableFromInline
struct _PendingChanges {
    let infos: [KVOInfo]
    /// Captured old values of the registrations that re-read their key path; nil when all are direct.
    let captured: [CapturedValue?]?
}

extension KVORegistrar {
    /// Reports a read of `slot` to the tracker active on this thread, if any.
    @usableFromInline
    func _access(_ slot: AnyKeyPath, storage: AnyKeyPath?) {
        guard let tracker = ThreadContext.currentIfPresent?.tracker else { return }
        tracker.record(self, slot: slot, storage: storage)
    }

    /// Before an `@Observed` set: sends prior records and captures what needs capturing.
    @usableFromInline
    func _willChange<Object: AnyObject, Value>(
        _ slot: AnyKeyPath,
        of object: Object,
        oldValue: Value
    ) -> _PendingChanges? {
        let infos = infos(for: slot)
        if infos.isEmpty { return nil }
        var captured: [CapturedValue?]? = nil
        for (index, info) in infos.enumerated() {
            if info.isDirect {
                info.priorDirect(object: object, oldValue: oldValue)
            } else {
                if captured == nil { captured = Array(repeating: nil, count: infos.count) }
                captured![index] = info.captureBeforeChange()
            }
        }
        return _PendingChanges(infos: infos, captured: captured)
    }

    /// After an `@Observed` set: delivers the change to each registration captured before it.
    @usableFromInline
    func _didChange<Object: AnyObject, Value>(
        _ pending: _PendingChanges,
        of object: Object,
        oldValue: Value,
        newValue: Value
    ) {
        for (index, info) in pending.infos.enumerated() {
            if let captured = pending.captured?[index] {
                info.changeEvaluated(captured: captured)
            } else {
                info.changeDirect(object: object, oldValue: oldValue, newValue: newValue)
            }
        }
    }

    /// The slots of this object that `keyPath` reads: its own, found by evaluating it once.
    func slots<Object: KeyValueObservable, Value>(
        readBy keyPath: KeyPath<Object, Value>,
        on object: Object
    ) -> [AnyKeyPath] {
        let tracker = AccessTracker(subscribing: nil)
        _ = tracker.run { object[keyPath: keyPath] }
        let mine = tracker.accesses.filter { $0.registrar === self }.map(\.slot)
        return mine.isEmpty ? [keyPath] : mine
    }

    func manualWillChange<Object: KeyValueObservable, Value>(of object: Object, keyPath: KeyPath<Object, Value>) {
        guard _hasObservers else { return }
        var pending: [PendingChange] = []
        for slot in slots(readBy: keyPath, on: object) {
            for info in infos(for: slot) {
                pending.append(PendingChange(info: info, captured: info.captureBeforeChange()))
            }
        }
        ThreadContext.current.pendingManualChanges.append(
            ManualChange(registrar: self, keyPath: keyPath, pending: pending)
        )
    }

    func manualDidChange(keyPath: AnyKeyPath) {
        guard let context = ThreadContext.currentIfPresent,
            let index = context.pendingManualChanges.lastIndex(where: { $0.registrar === self && $0.keyPath == keyPath }
            )
        else { return }
        let change = context.pendingManualChanges.remove(at: index)
        for pending in change.pending {
            pending.info.changeEvaluated(captured: pending.captured)
        }
    }
}
