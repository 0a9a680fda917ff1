import Foundation
internal import KVORuntimeShims
import Synchronization

/// Told when a registration ends because the object it observes deinitialised.
protocol KVOInfoOwner: AnyObject {
    func infoDidEnd(_ info: KVOInfo)
}

/// A dependency of a registration: a slot of some object's registrar.
struct Dependency {
    /// Unretained, and used only under the registration's lock: a registrar's deinit ends every
    /// dependency on it under that same lock (``KVOInfo/registrarDidDeinit(_:)``) before its memory
    /// goes, so while a dependency is listed its registrar's memory is there; calls on it go through
    /// `retainedRegistrar()`. (No weak reference: that would give every observed object's registrar a
    /// side table, and copying one costs atomic operations.)
    let registrar: Unmanaged<KVORegistrar>
    let slot: SlotKey

    /// The registrar, retained, unless it has started deinitialising (its deinit then ends this
    /// dependency itself, under the registration's lock).
    ///
    /// The caller releases it only after unlocking the registration's lock: its last release may run
    /// the registrar's deinit, which takes that lock. (Used unretained, the registrar could be
    /// released for the last time by the very call made on it, say by an unoptimised build's retain
    /// and release of `self`, while the caller holds the lock: a deadlock.)
    func retainedRegistrar() -> Unmanaged<KVORegistrar>? {
        kvo_try_retain(registrar.toOpaque()) ? registrar : nil
    }

    /// The registrar's identity.
    var registrarID: ObjectIdentifier {
        unsafeBitCast(registrar.toOpaque(), to: ObjectIdentifier.self)
    }
}

/// One registration: a key path of one object, its options, its callback and the slots it depends on.
///
/// Its state lives in one atomic word, the gate: initial → observing (after `start`) → not observing
/// (cancelled). A callback runs only after entering the gate, which fails once cancelled; `cancel()`
/// then waits for callbacks already in flight on other threads, so none runs after it returns.
///
/// While a thread is in the gate, the registration stays allocated even if nothing else holds it:
/// its owners release it only after `cancel()`, which either waited for every thread in the gate,
/// or (called from inside a callback, where it must not wait) retained it for the last thread to
/// leave the gate to release (the hold bit). So the notification fast path enters the gate under
/// its registrar's lock and then uses the registration with no reference counting.
@usableFromInline
class KVOInfo: _KeyPathHolder, @unchecked Sendable {  // the gate is atomic; dependencies: the striped lock
    static let cancelledBit = 1
    static let directBit = 2
    /// Set once the callbacks have been released (after cancellation, with none in flight).
    static let releasedBit = 4
    /// Set while a canceller that did not wait holds a retain for the last thread leaving the gate.
    static let holdBit = 8
    static let inFlightUnit = 16

    let gate = Atomic<Int>(0)
    /// Evaluations are numbered, so that an older one does not undo what a newer one subscribed to
    /// (compared with wrapping arithmetic).
    let tickets = Atomic<UInt32>(0)
    // Guarded by `StripedLocks.lock(for: self)`.
    @exclusivity(unchecked) private var appliedTicket: UInt32 = 0
    @exclusivity(unchecked) private var closed = false
    // Written once, before the registration starts, and only read after: no runtime checks.
    /// Set for value streams: every record must carry the whole value, so collection mutations are
    /// delivered as settings (re-read) rather than as the elements that changed.
    @exclusivity(unchecked) var wantsWholeValues = false
    private let optionBits: UInt8
    /// How the subclass reads the key path (its meaning is the subclass's).
    let readerKind: UInt8
    /// The observed object (its address is its identity here; see `ObjectPin`).
    private let object: ObjectPin<AnyObject>
    /// The observed object's registrar, to tell its deinit from that of another object read.
    let rootRegistrar: Unmanaged<KVORegistrar>
    /// Told when the observed object deinitialises (a controller, a ``KVOInfoOwner``), held as the
    /// object is (see `ObjectPin`: a weak reference would give every controller a side table, and
    /// then each retain and release of it takes the slow path). Loaded only inside the gate.
    private let owner: ObjectPin<AnyObject>?
    /// What few registrations need (see `Extras`); nil for most.
    @exclusivity(unchecked) private var extras: Extras?
    /// The callback (see `_DeliveryBox`), held unmanaged so that a delivery inside the gate (where it
    /// cannot be released) calls it with no reference counting; released once cancelled and idle.
    @exclusivity(unchecked) private var box: Unmanaged<_DeliveryBox>?
    // Guarded by `StripedLocks.lock(for: self)`.
    @exclusivity(unchecked) private var dependencies = InlineList<Dependency>()

    /// What few registrations need, kept out of the registration itself.
    private final class Extras {
        var stringKeyPath: String?
        var onObjectDeinit: (() -> Void)?
    }

    // Borrowed parameters (an initialiser's are owned by default): only the key path and the box are kept.
    init(
        keyPath: __owned AnyKeyPath,
        options: KVOOptions,
        object: __shared some KeyValueObservable,
        owner: __shared AnyObject?,
        readerKind: UInt8,
        box: __shared _DeliveryBox
    ) {
        self.owner = owner.map { ObjectPin($0) }
        self.optionBits = UInt8(truncatingIfNeeded: options.rawValue)
        self.readerKind = readerKind
        self.object = ObjectPin(object)
        let registrar = object.kvoRegistrar
        registrar.verifyStored(in: object)
        self.rootRegistrar = .passUnretained(registrar)
        self.box = Unmanaged.passRetained(box)
        super.init(keyPath)
    }

    deinit {
        box?.release()
        if !callbacksReleased {
            object.unpin()
            owner?.unpin()
        }
    }

    /// What each record carries.
    final var options: KVOOptions {
        KVOOptions(rawValue: UInt(optionBits))
    }

    /// The observed object's identity.
    final var objectID: ObjectIdentifier {
        object.id
    }

    /// The string key path this registration was made with, if any (set before it starts).
    final var stringKeyPath: String? {
        get { extras?.stringKeyPath }
        set {
            guard let newValue else { return }
            extras(creating: true)?.stringKeyPath = newValue
        }
    }

    /// Called when the observed object deinitialises (set before it starts); released once idle.
    final var onObjectDeinit: (() -> Void)? {
        get { extras?.onObjectDeinit }
        set {
            guard let newValue else { return }
            extras(creating: true)?.onObjectDeinit = newValue
        }
    }

    private func extras(creating: Bool) -> Extras? {
        if extras == nil, creating { extras = Extras() }
        return extras
    }

    /// The observed object's static type, for descriptions once it has gone.
    var objectTypeName: String { "" }

    /// The name the observed type gives the key path (``KeyValueObservable/keyPathName(for:)``).
    func declaredName() -> String? { nil }

    /// The property's name, for a key path ``DirectSlotCache`` knows to be one `@Observed` property.
    func directName() -> String? { nil }

    /// The key path as people write it: the string it was made with, the type's own name for it, the
    /// chain of properties it follows, or what it reads.
    override final var keyPathName: String {
        if let stringKeyPath { return stringKeyPath }
        if let declared = declaredName() { return declared }
        return namePath ?? unchainedName()
    }

    /// The observed object, retained, unless it has started deinitialising or this registration has
    /// been cancelled (loaded inside the gate, so never after it is unpinned).
    final func loadObject() -> AnyObject? {
        guard tryEnter() else { return nil }
        defer { leave() }
        return object.load()
    }

    /// Direct: the key path is exactly one `@Observed` slot of the root object, so a set's own old and
    /// new values are the change and nothing needs re-reading or re-tracking.
    final var isDirect: Bool {
        gate.load(ordering: .relaxed) & Self.directBit != 0
    }

    /// Found to be direct when starting: delivered from the setter's values from now on, unless it
    /// wants whole values (streams), which collection mutations must re-read.
    final func markDirect() {
        if !wantsWholeValues { gate.bitwiseOr(Self.directBit, ordering: .relaxed) }
    }

    /// Whether the callbacks have been released (cancelled, with none in flight).
    final var callbacksReleased: Bool {
        gate.load(ordering: .acquiring) & Self.releasedBit != 0
    }

    final var isCancelled: Bool {
        gate.load(ordering: .acquiring) & Self.cancelledBit != 0
    }

    // MARK: Delivery

    /// Runs `body` as a callback of this registration unless it has been cancelled.
    @inline(__always)
    final func deliver(_ body: () -> Void) {
        guard tryEnter() else { return }
        asCallback(body)
        leave()
    }

    /// Enters the gate unless cancelled: a callback may then run until `leave()`.
    @inline(__always)
    final func tryEnter() -> Bool {
        var state = gate.load(ordering: .relaxed)
        while true {
            if state & Self.cancelledBit != 0 { return false }
            let (exchanged, original) = gate.compareExchange(
                expected: state,
                desired: state &+ Self.inFlightUnit,
                ordering: .acquiring
            )
            if exchanged { return true }
            state = original
        }
    }

    /// Leaves the gate. Once out, this thread must not touch the registration (a waiting canceller
    /// may let it go), unless it is the last one out and holds the canceller's retain.
    @inline(__always)
    final func leave() {
        let after = gate.wrappingSubtract(Self.inFlightUnit, ordering: .acquiringAndReleasing).newValue
        if after < Self.inFlightUnit, after & Self.holdBit != 0 { lastOutReleases() }
    }

    /// The last thread out of the gate of a registration cancelled from inside a callback: claims the
    /// hold, then releases the callbacks and the retain the canceller left.
    ///
    /// The claim is atomic because two threads can each see the gate empty with the hold set: a dying
    /// registrar's `registrarDidDeinit` enters the gate even when cancelled. Both hold a reference.
    @inline(never)
    private func lastOutReleases() {
        let previous = gate.bitwiseAnd(~Self.holdBit, ordering: .acquiringAndReleasing).oldValue
        guard previous & Self.holdBit != 0 else { return }
        releaseCallbacksOnce()
        Unmanaged.passUnretained(self).release()
    }

    /// Runs `body` as a callback on this thread: no tracker while user code runs (its reads are not the
    /// evaluation's), and counted in the thread's delivery depth.
    @inline(__always)
    final func asCallback(_ body: () -> Void) {
        ThreadContext.currentUnmanaged._withUnsafeGuaranteedRef { context in
            let tracker = context.tracker
            if tracker != nil { context.tracker = nil }
            context.deliveryDepth += 1
            body()
            context.deliveryDepth -= 1
            if tracker != nil { context.tracker = tracker }
        }
    }

    /// Drops the callbacks (and whatever they capture) once cancelled with none in flight, so that a
    /// block capturing its own token or controller makes no cycle that outlives the registration.
    /// Called by a canceller that does not wait (the caller holds a reference): releases them now if
    /// no thread is in the gate, or leaves that to the last thread out, with a retain that keeps this
    /// registration alive until then.
    private func releaseCallbacksWhenIdle() {
        var state = gate.load(ordering: .acquiring)
        if state < Self.inFlightUnit { return releaseCallbacksOnce() }
        if state & Self.holdBit != 0 { return }
        let retained = Unmanaged.passRetained(self)
        while true {
            if state < Self.inFlightUnit || state & Self.holdBit != 0 {
                retained.release()
                if state < Self.inFlightUnit { releaseCallbacksOnce() }
                return
            }
            let (exchanged, original) = gate.compareExchange(
                expected: state,
                desired: state | Self.holdBit,
                ordering: .acquiringAndReleasing
            )
            if exchanged { return }
            state = original
        }
    }

    private func releaseCallbacksOnce() {
        let previous = gate.bitwiseOr(Self.releasedBit, ordering: .acquiringAndReleasing).oldValue
        guard previous & Self.releasedBit == 0 else { return }
        object.unpin()
        owner?.unpin()
        let released = box
        box = nil
        let onObjectDeinit = extras?.onObjectDeinit
        extras?.onObjectDeinit = nil
        // Last: releasing the callbacks may run any deinit, which must not find this half done.
        withExtendedLifetime(onObjectDeinit) { released?.release() }
    }

    /// Stops the registration: no callback starts after this returns, except that, called from inside
    /// a callback, it does not wait for callbacks in flight on other threads (that could deadlock).
    final func cancel() {
        let previous = gate.bitwiseOr(Self.cancelledBit, ordering: .acquiringAndReleasing).oldValue
        if previous & Self.cancelledBit == 0 {
            unsubscribeAll(except: nil)
        }
        if (ThreadContext.currentIfPresent?.deliveryDepth ?? 0) == 0 {
            var backoff = Backoff()
            while gate.load(ordering: .acquiring) >= Self.inFlightUnit { backoff.wait() }
            releaseCallbacksOnce()
        } else {
            releaseCallbacksWhenIdle()
        }
    }

    // MARK: Dependencies

    final func nextTicket() -> UInt32 {
        tickets.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Adds a dependency and subscribes to it; called by the tracker as each read happens.
    final func subscribe(_ access: Access) {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        defer { lock.unlock() }
        if !closed { subscribeLocked(access) }
    }

    /// Adds a dependency and subscribes to it, unless it is already listed. Called with this
    /// registration's striped lock held, before it is closed; `access` keeps its registrar alive.
    private func subscribeLocked(_ access: Access) {
        let registrarID = ObjectIdentifier(access.registrar)
        if dependencies.contains(where: { $0.registrarID == registrarID && $0.slot == access.slot }) { return }
        dependencies.append(Dependency(registrar: .passUnretained(access.registrar), slot: access.slot))
        access.registrar.add(self, for: access)
    }

    /// Brings the dependencies to what an evaluation read, unless a newer evaluation already did: drops
    /// what it no longer read, subscribes again what it read that an older evaluation pruned meanwhile
    /// (evaluations on two threads may prune out of order), and keeps a lifetime dependency on the root
    /// object exactly while it reads nothing of it (a computed property that stopped reading its own
    /// object still ends with it).
    ///
    /// The caller holds the root object, so its registrar is alive, and `accesses` holds the others.
    final func prune(keeping accesses: [Access], ticket: UInt32) {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        var held = InlineList<Unmanaged<KVORegistrar>>()
        if !closed, Int32(bitPattern: ticket &- appliedTicket) > 0 {
            appliedTicket = ticket
            let root = rootRegistrar.toOpaque()
            let readsRoot = accesses.contains { Unmanaged.passUnretained($0.registrar).toOpaque() == root }
            dependencies.removeAll { dependency in
                let kept =
                    dependency.slot == .lifetime
                    ? !readsRoot
                    : accesses.contains {
                        ObjectIdentifier($0.registrar) == dependency.registrarID && $0.slot == dependency.slot
                    }
                if !kept, let registrar = dependency.retainedRegistrar() {
                    registrar._withUnsafeGuaranteedRef { $0.remove(self, for: dependency.slot) }
                    held.append(registrar)
                }
                return !kept
            }
            for access in accesses { subscribeLocked(access) }
            if !readsRoot, !dependencies.contains(where: { $0.registrar.toOpaque() == root }) {
                rootRegistrar._withUnsafeGuaranteedRef { subscribeLocked(Access(registrar: $0, slot: .lifetime)) }
            }
        }
        lock.unlock()
        for registrar in held { registrar.release() }
    }

    private func unsubscribeAll(except dyingRegistrar: ObjectIdentifier?) {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        closed = true
        // Under the lock: a registrar deinitialising meanwhile waits for it before its memory goes.
        var held = InlineList<Unmanaged<KVORegistrar>>()
        for dependency in dependencies where dependency.registrarID != dyingRegistrar {
            guard let registrar = dependency.retainedRegistrar() else { continue }
            registrar._withUnsafeGuaranteedRef { $0.remove(self, for: dependency.slot) }
            held.append(registrar)
        }
        dependencies = InlineList()
        lock.unlock()
        for registrar in held { registrar.release() }
    }

    /// A registrar this registration depends on deinitialised (it has already dropped us from its table).
    final func registrarDidDeinit(_ registrarID: ObjectIdentifier) {
        if registrarID == unsafeBitCast(rootRegistrar.toOpaque(), to: ObjectIdentifier.self) {
            // Counted as in flight while it runs, so that the callbacks it calls are not released under it.
            // (and as a callback of this thread, so that a cancel from inside it does not wait for itself).
            // (The caller, the dying registrar, holds a reference throughout.)
            let previous = gate.wrappingAdd(Self.inFlightUnit, ordering: .acquiringAndReleasing).oldValue
            let context = ThreadContext.current
            context.deliveryDepth += 1
            gate.bitwiseOr(Self.cancelledBit, ordering: .acquiringAndReleasing)
            unsubscribeAll(except: registrarID)
            // Unless it was already cancelled (and so already out of its owner's table): then the
            // callbacks and the owner's pin may have been released before this entered the gate.
            if previous & Self.cancelledBit == 0 {
                (owner?.load() as? any KVOInfoOwner)?.infoDidEnd(self)
                onObjectDeinit?()
            }
            context.deliveryDepth -= 1
            leave()
            releaseCallbacksWhenIdle()
        } else {
            let lock = StripedLocks.lock(for: self)
            lock.withLock { dependencies.removeAll { $0.registrarID == registrarID } }
        }
    }

    /// The slots this registration depends on, in the order they were read, each with its property
    /// name and the typed key path that read it.
    final func dependencySlots() -> [(name: String, wrapped: AnyKeyPath?)] {
        var held = InlineList<Unmanaged<KVORegistrar>>()
        let slots: [(name: String, wrapped: AnyKeyPath?)] = StripedLocks.lock(for: self).withLock {
            dependencies.compactMap { dependency in
                if dependency.slot == .lifetime { return nil }
                guard let registrar = dependency.retainedRegistrar() else { return nil }
                held.append(registrar)
                let described = registrar._withUnsafeGuaranteedRef { $0.describe(dependency.slot) }
                return (described.name ?? String(describing: dependency.slot), described.wrapped)
            }
        }
        for registrar in held { registrar.release() }
        return slots
    }

    // MARK: Notifications (overridden by the typed subclass)

    /// Before a set of a direct registration's slot: the prior record, if asked for.
    final func priorDirect(object: AnyObject, oldValue: UnsafeRawPointer, type: Any.Type) {
        guard options.contains(.prior) else { return }
        deliver { callDirect(object: object, oldValue: oldValue, newValue: nil, type: type, isPrior: true) }
    }

    /// After a set of a direct registration's slot: the change record from the setter's own values.
    final func changeDirect(object: AnyObject, oldValue: UnsafeRawPointer, newValue: UnsafeRawPointer, type: Any.Type) {
        deliver { callDirect(object: object, oldValue: oldValue, newValue: newValue, type: type, isPrior: false) }
    }

    /// A whole set of a direct registration's slot, already inside the gate (entered under the
    /// registrar's lock): the prior record, `store`, the change record; then leaves the gate.
    final func setDirect(
        object: AnyObject,
        oldValue: UnsafeRawPointer,
        newValue: UnsafeRawPointer,
        type: Any.Type,
        store: () -> Void
    ) {
        if options.contains(.prior) {
            asCallback { callDirect(object: object, oldValue: oldValue, newValue: nil, type: type, isPrior: true) }
        }
        store()
        // The prior callback may have cancelled this registration: then no change record.
        if gate.load(ordering: .acquiring) & Self.cancelledBit == 0 {
            asCallback {
                callDirect(object: object, oldValue: oldValue, newValue: newValue, type: type, isPrior: false)
            }
        }
        leave()
    }

    /// Calls back with a direct record (values filtered by the options); inside the gate.
    @inline(__always)
    private func callDirect(
        object: AnyObject,
        oldValue: UnsafeRawPointer,
        newValue: UnsafeRawPointer?,
        type: Any.Type,
        isPrior: Bool
    ) {
        let old = options.contains(.old) ? oldValue : nil
        let new = options.contains(.new) ? newValue : nil
        // Inside the gate the box cannot be released.
        box?._withUnsafeGuaranteedRef { $0.deliver($0, object, old, new, type, isPrior, self) }
    }

    /// Calls back with a whole record (of the registration's value type); inside the gate.
    @inline(__always)
    final func callRecord<Value>(object: AnyObject, _ change: KVOChange<Value>) {
        withUnsafePointer(to: change) { record in
            box?._withUnsafeGuaranteedRef { $0.deliver($0, object, nil, record, nil, change.isPrior, self) }
        }
    }

    /// Before a collection mutation of a direct registration's slot: the prior record, if asked for.
    func priorCollection<Object: AnyObject, Elements>(
        object: Object,
        kind: KVOChangeKind,
        indexes: IndexSet?,
        oldElements: Elements?
    ) {}

    /// After a collection mutation of a direct registration's slot: the record with kind and indexes.
    func changeCollection<Object: AnyObject, Elements>(
        object: Object,
        kind: KVOChangeKind,
        indexes: IndexSet?,
        oldElements: Elements?,
        newElements: Elements?
    ) {}

    /// Before any other change: sends the prior record and returns the old value, if asked for.
    func captureBeforeChange() -> CapturedValue { .none }

    /// After any other change: re-reads the key path (refreshing dependencies) and delivers.
    func changeEvaluated(captured: CapturedValue) {}
}

/// The value of type `type` at `pointer`, boxed.
@usableFromInline
func loadValue(at pointer: UnsafeRawPointer, as type: Any.Type) -> Any {
    func load<T>(_: T.Type) -> Any { pointer.assumingMemoryBound(to: T.self).pointee }
    return load(type)
}

/// Reinterprets a value whose type is known to match (or converts it to `Any`).
@inline(__always)
func reinterpret<T, U>(_ value: T, as type: U.Type) -> U {
    if T.self == U.self { return unsafeBitCast(value, to: U.self) }
    return value as! U
}

/// Runs `body` with no tracker installed, so that its reads are not recorded anywhere.
func untracked<Result>(_ body: () -> Result) -> Result {
    guard let context = ThreadContext.currentIfPresent, let tracker = context.tracker else { return body() }
    context.tracker = nil
    defer { context.tracker = tracker }
    return body()
}

/// Key path equality, for optionals too (the same object, the common case, is equal at once).
@inline(__always)
func sameKeyPath(_ lhs: AnyKeyPath?, _ rhs: AnyKeyPath?) -> Bool {
    lhs === rhs || lhs == rhs
}
