import Foundation
import Synchronization

/// One registration: a key path of one object, its options, its callback and the slots it depends on.
///
/// Its state lives in one atomic word, the gate (``RegistrationGate``, whose transitions this applies):
/// initial → observing (after `start`) → not observing (cancelled). A callback runs only after
/// entering the gate, which fails once cancelled; `cancel()` then waits for callbacks already in
/// flight on other threads, so none runs after it returns.
///
/// While a thread is in the gate, the registration stays allocated even if nothing else holds it:
/// its owners release it only after `cancel()`, which either waited for every thread in the gate,
/// or (called from inside a callback, where it must not wait) retained it for the last thread to
/// leave the gate to release (the hold bit). So the notification fast path enters the gate under
/// its registrar's lock and then uses the registration with no reference counting. A set of a
/// property with one registration that takes the setter's values (direct, or a chain's leaf), and a
/// proxy's mutation of a collection whose one registration takes its kind, enter through the thread's
/// pass instead of the count, with no atomic operation (``GatePasses``); every rule above counts a pass
/// as a callback in flight.
@usableFromInline
class KVOInfo: SlotObserver, @unchecked Sendable {  // the gate is atomic; `state`: the striped lock
    /// Evaluations are numbered, so that an older one does not undo what a newer one subscribed to
    /// (compared with wrapping arithmetic: 16 bits, as evaluations of one registration in flight at
    /// once are never near 32,768 apart, and two bytes keep the registration in a smaller allocation).
    let tickets = Atomic<UInt16>(0)
    private let optionBits: UInt8
    /// Where it was made (see `_RegistrationSites`; 0: unknown). (Beside the other small fields, where
    /// the registration had room for it.)
    let site: UInt16
    // (The flags next, in the room the small fields above leave before the references: each registration
    // is a smaller allocation.)
    /// Set once an evaluation read a link that may be weak (never cleared): an `@ObservedWeak` property
    /// (by its getter or by name) or custom storage (`accessValue(for:)`). Only then can a chain's leaf
    /// be on an object that is deinitialising (see `KVOInfo+Direct`'s `reachesLeaf`).
    let readsWeakLink = Atomic<Bool>(false)
    #if DEBUG
    /// Whether a record other than the `.initial` one was delivered (a discarded token is reported).
    let deliveredChange = Atomic<Bool>(false)
    #endif
    /// Whether a record was delivered (the `.initial` one too): then its name is kept when it ends.
    let madeRecord = Atomic<Bool>(false)
    /// How many threads' transactions replaced a link of this chain and have not delivered it yet: until
    /// they do, the chain follows its old links, so other threads' changes of it go into those
    /// transactions' records instead of being delivered (see `linkAwaitsATransaction`).
    let linksAwaitingTransactions = Atomic<UInt16>(0)
    // Written once, before the registration starts, and only read after: no runtime checks.
    /// Set for value streams: every record must carry the whole value, so collection mutations are
    /// delivered as settings (re-read) rather than as the elements that changed.
    @exclusivity(unchecked) var wholeValuesWanted = false
    /// The observed object (its address is its identity here; see `ObjectPin`).
    let object: ObjectPin<AnyObject>
    /// The observed object's registrar, to tell its deinit from that of another object read.
    let rootRegistrar: Unretained<KVORegistrar>
    /// Told when the observed object deinitialises (a controller, a ``KVOInfoOwner``), held as the
    /// object is (see `ObjectPin`: a weak reference would give every controller a side table, and
    /// then each retain and release of it takes the slow path). Loaded only inside the gate.
    let owner: ObjectPin<AnyObject>?
    /// What few registrations need (see `Extras`); none for most. Stored once, from any thread: a name
    /// learnt late stores one under the striped lock while other threads read it (`unretainedExtras`,
    /// `unretainedExtrasCreating()`).
    let extrasReference = OnceReference<Extras>()
    /// The callback (see `_DeliveryBox`), held unmanaged so that a delivery inside the gate (where it
    /// cannot be released) calls it with no reference counting; released once cancelled and idle.
    @exclusivity(unchecked) var box: Unretained<_DeliveryBox>?
    /// What it depends on, and whether it is closed (see ``RegistrationState``). Guarded by
    /// `StripedLocks.lock(for: self)`.
    @exclusivity(unchecked) var state = RegistrationState()

    // Borrowed parameters (an initialiser's are owned by default): only the key path and the box are kept.
    init(
        keyPath: __owned AnyKeyPath,
        options: KVOOptions,
        object: __shared some KeyValueObservable,
        owner: __shared AnyObject?,
        readerKind: ReaderKind,
        rootDeclares: Bool,
        box: __shared _DeliveryBox
    ) {
        self.owner = owner.map { ObjectPin($0) }
        self.optionBits = UInt8(truncatingIfNeeded: options.rawValue)
        self.site = _RegistrationSites.current
        self.object = ObjectPin(object)
        let registrar = object.kvoRegistrar
        registrar.verifyStored(in: object)
        self.rootRegistrar = Unretained(registrar)
        self.box = Unretained(retaining: box)
        super.init(
            keyPath,
            kindBits: readerKind.rawValue | (rootDeclares ? Self.rootDeclaresBit : 0)
                | (options.contains(.prior) ? Self.sendsPriorBit : 0)
        )
    }

    deinit {
        box?.release()
        if !callbacksReleased {
            object.unpin()
            owner?.unpin()
        }
    }

    private static let rootDeclaresBit: UInt8 = 0b100

    /// Whether the observed object's class declares key paths affecting the observed key path
    /// (``KeyValueObservable/keyPathsAffectingValue(for:)``), found when the registration is made (the
    /// object's class does not change, and Cocoa too caches the answer per class and key): only then does
    /// an evaluation ask for the declarations, and read them.
    final var rootDeclares: Bool {
        kindBits & Self.rootDeclaresBit != 0
    }

    /// What each record carries.
    final var options: KVOOptions {
        KVOOptions(rawValue: UInt(optionBits))
    }

    /// The observed object's identity.
    final var objectID: ObjectIdentifier {
        object.id
    }

    /// The observed object's static type, for descriptions once it has gone.
    var objectTypeName: String { "" }

    /// The name the observed type gives the key path (``KeyValueObservable/keyPathName(for:)``).
    func declaredName() -> String? { nil }

    /// For a registration of one `@Observed` property (``isDirect``), the property's name, from its slot.
    func directName() -> String? { nil }

    /// Whether `directName()` names this registration (it is one `@Observed` property): known without
    /// looking the name up.
    var isNamedByItsSlot: Bool { false }

    /// The key path as people write it: the string it was made with, the type's own name for it, the
    /// chain of properties it follows, or what it reads.
    override final var ownName: String? {
        if let stringKeyPath { return stringKeyPath }
        if let declared = declaredName() { return declared }
        return namePath ?? learntChainName ?? unchainedName()
    }

    /// The observed object, retained, unless it has started deinitialising or this registration has
    /// been cancelled (loaded inside the gate, so never after it is unpinned).
    final func loadObject() -> AnyObject? {
        guard tryEnter() else { return nil }
        defer { leave() }
        return object.load()
    }

    /// Sets what runs when the observed object deinitialises, before this registration starts.
    @usableFromInline
    final func _onObjectDeinit(_ body: @escaping @Sendable () -> Void) {
        onObjectDeinit = body
    }

    /// Makes this registration, not yet started, want whole values (as `wholeValuesWanted` says).
    @usableFromInline
    final func _wantWholeValues() {
        wholeValuesWanted = true
    }

    override final var traced: KVOTraceEntry.Registration {
        let site = _RegistrationSites.site(self.site)
        return KVOTraceEntry.Registration(
            keyPath: keyPathName,
            observerType: site?.observerType.map { "\($0)" },
            madeAt: site?.place,
            delivery: site?.form.description
        )
    }

    override final var isDeferredInTransaction: Bool {
        TransactionChanges.withOnThisThread { $0.isPending(self) } ?? false
    }

    override final var wantsWholeValues: Bool {
        get { wholeValuesWanted }
        set { wholeValuesWanted = newValue }
    }

    /// Found to be direct when starting: sets are delivered from the setter's values from now on.
    /// (Collection mutations give a registration that wants whole values a setting: see
    /// `mutateCollection`.)
    final func markDirect() {
        gate.bitwiseOr(RegistrationGate(rawValue: 0).markingDirect().rawValue, ordering: .relaxed)
    }

    /// Subscribed to what it depends on: observing from now on, unless cancelled meanwhile.
    final func markStarted() {
        let previous = gate.bitwiseOr(RegistrationGate.startedBit, ordering: .releasing).oldValue
        _ = RegistrationGate(rawValue: previous).starting()  // stops a second start
    }

    /// Where the registration is: initial, observing or not observing.
    final var phase: RegistrationGate.Phase {
        RegistrationGate(rawValue: gate.load(ordering: .acquiring)).phase
    }

    /// Whether the callbacks have been released (cancelled, with none in flight).
    final var callbacksReleased: Bool {
        RegistrationGate(rawValue: gate.load(ordering: .acquiring)).isReleased
    }

    final var isCancelled: Bool {
        RegistrationGate(rawValue: gate.load(ordering: .acquiring)).isCancelled
    }

    // MARK: What a registrar and a tracker call (``SlotObserver``; each forwards to the facet that does it)

    override final func setDirect(
        object: AnyObject,
        oldValue: ValueAddress,
        newValue: ValueAddress,
        type: Any.Type,
        passed: Bool,
        store: () -> Void
    ) {
        deliverSetDirect(
            object: object,
            oldValue: oldValue,
            newValue: newValue,
            type: type,
            passed: passed,
            store: store
        )
    }

    override final func givePassBack() {
        finishGivingPassBack()
    }

    override final func mutateCollectionDirect(
        object: AnyObject,
        parts: inout _CollectionParts,
        passed: Bool,
        apply: () -> Void
    ) {
        deliverCollectionDirect(
            object: object,
            parts: &parts,
            passed: passed,
            apply: apply
        )
    }

    override final func notedSetInTransaction(field: Int, old: ValueAddress, type: Any.Type) -> Bool {
        noteSetInTransaction(field: field, old: old, type: type)
    }

    override final func priorDirect(object: AnyObject, oldValue: ValueAddress, newValue: ValueAddress, type: Any.Type) {
        deliverPriorDirect(object: object, oldValue: oldValue, newValue: newValue, type: type)
    }

    override final func changeDirect(object: AnyObject, oldValue: ValueAddress, newValue: ValueAddress, type: Any.Type)
    {
        deliverChangeDirect(object: object, oldValue: oldValue, newValue: newValue, type: type)
    }

    override final func registrarDidDeinit(_ registrarID: ObjectIdentifier) {
        endDependencies(onDeinitOf: registrarID)
    }

    override final func subscribe(_ access: Access) {
        subscribeToRead(access)
    }

    override final func noteReadsWeakLink() {
        readsWeakLink.store(true, ordering: .relaxed)
    }

    override final func copyFieldDependencies(
        into expected: inout [(registrar: ObjectIdentifier, field: Int)],
        since: inout UInt16
    ) -> Int {
        copyDependencies(into: &expected, since: &since)
    }

    override final func recordListed(
        _ expected: [(registrar: ObjectIdentifier, field: Int)],
        count: Int,
        since: UInt16,
        _ record: (Access) -> Void
    ) -> Bool {
        recordListedReads(expected, count: count, since: since, record)
    }

    // MARK: Notifications (overridden by the typed subclass; the direct ones are in KVOInfo+Direct)

    /// Before a collection mutation of a direct registration's slot: the prior record, if asked for.
    override func priorCollection<Object: AnyObject, Elements>(
        object: Object,
        kind: KVOChangeKind,
        indexes: IndexSet?,
        oldElements: Elements?
    ) {}

    override func priorCollection(object: AnyObject, parts: _CollectionParts) {}

    override func changeCollection(object: AnyObject, parts: _CollectionParts) {}

    /// After a collection mutation of a direct registration's slot: the record with kind and indexes.
    override func changeCollection<Object: AnyObject, Elements>(
        object: Object,
        kind: KVOChangeKind,
        indexes: IndexSet?,
        oldElements: Elements?,
        newElements: Elements?
    ) {}

    /// Before any other change: sends the prior record and returns the old value, if asked for.
    override func captureBeforeChange() -> CapturedValue { .none }

    /// After any other change: re-reads the key path (refreshing dependencies) and delivers.
    override func changeEvaluated(captured: CapturedValue) {}

    /// At the end of a transaction that changed this registration's value: its one record, from `old` (its
    /// value before the transaction's first change, boxed) to its value now, or `collection`, the one
    /// change, as it was made (see `TransactionChanges`).
    func deliverDeferred(old: Any?, collection: DeferredCollectionChange?) {}

    /// A change by `store` of a slot this registration re-reads: the three steps above, in order.
    func changeAround(store: () -> Void) {
        let captured = captureBeforeChange()
        store()
        changeEvaluated(captured: captured)
    }

    /// `changeAround(store:)` for a set of an `@Observed` property, with the setter's values: a chain
    /// whose link it is follows the new link rather than re-reading its key path (`TypedKVOInfo+Links`).
    override func changeAround(link: LinkChange, store: () -> Void) {
        changeAround(store: store)
    }
}

extension KVOInfo {
    /// Stores `word` in ``leaf``.
    @inline(__always)
    final func setLeafWord(_ word: LeafWord) {
        leaf.store(word.bits, ordering: .relaxed)
    }
}
