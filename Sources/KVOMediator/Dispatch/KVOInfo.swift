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
/// its registrar's lock and then uses the registration with no reference counting.
@usableFromInline
class KVOInfo: _KeyPathHolder, @unchecked Sendable {  // the gate is atomic; `state`: the striped lock
    /// The gate's word (see ``RegistrationGate``).
    let gate = Atomic<Int>(0)
    /// Evaluations are numbered, so that an older one does not undo what a newer one subscribed to
    /// (compared with wrapping arithmetic: 16 bits, as evaluations of one registration in flight at
    /// once are never near 32,768 apart, and two bytes keep the registration in a smaller allocation).
    let tickets = Atomic<UInt16>(0)
    /// The ticket of the newest evaluation applied (see `appliedTicket`).
    let appliedTicketWord = Atomic<UInt16>(0)
    // Written once, before the registration starts, and only read after: no runtime checks.
    /// Set for value streams: every record must carry the whole value, so collection mutations are
    /// delivered as settings (re-read) rather than as the elements that changed.
    @exclusivity(unchecked) var wantsWholeValues = false
    private let optionBits: UInt8
    /// How the subclass reads the key path (its meaning is the subclass's), in the low two bits, and
    /// `rootDeclaresBit`.
    private let kindBits: UInt8
    /// The observed object (its address is its identity here; see `ObjectPin`).
    let object: ObjectPin<AnyObject>
    /// The observed object's registrar, to tell its deinit from that of another object read.
    let rootRegistrar: Unretained<KVORegistrar>
    /// Told when the observed object deinitialises (a controller, a ``KVOInfoOwner``), held as the
    /// object is (see `ObjectPin`: a weak reference would give every controller a side table, and
    /// then each retain and release of it takes the slow path). Loaded only inside the gate.
    let owner: ObjectPin<AnyObject>?
    /// A ``LeafWord`` (read and written as one through ``leafWord``): the slot whose value is this
    /// registration's value, when its key path is a chain of `@Observed` properties whose links are all
    /// there; a set of that slot is then delivered from the setter's own old and new values, as a direct
    /// registration's is: nothing is re-read and nothing re-subscribed, since the links before it did not
    /// change; and a collection mutation of it delivers its kind and indexes. Or none, or that the last
    /// reads were no chain, or (no setter reaches a registration before it starts) its direct field.
    /// Written by the newest evaluation.
    let leaf = Atomic<UInt>(0)
    /// What few registrations need (see `Extras`); nil for most.
    @exclusivity(unchecked) var extras: Extras?
    /// The callback (see `_DeliveryBox`), held unmanaged so that a delivery inside the gate (where it
    /// cannot be released) calls it with no reference counting; released once cancelled and idle.
    @exclusivity(unchecked) var box: Unretained<_DeliveryBox>?
    /// What it depends on, and whether it is closed (see ``RegistrationState``). Guarded by
    /// `StripedLocks.lock(for: self)`.
    @exclusivity(unchecked) var state = RegistrationState()
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
    /// The name this registration found itself (see `KVOInfo+Names`), boxed: one word in every registration
    /// for what few keep. Guarded by `StripedLocks.lock(for: self)`.
    @exclusivity(unchecked) var learntNameStorage: LearntName?

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
        self.kindBits = readerKind.rawValue | (rootDeclares ? Self.rootDeclaresBit : 0)
        self.object = ObjectPin(object)
        let registrar = object.kvoRegistrar
        registrar.verifyStored(in: object)
        self.rootRegistrar = Unretained(registrar)
        self.box = Unretained(retaining: box)
        super.init(keyPath)
    }

    deinit {
        box?.release()
        if !callbacksReleased {
            object.unpin()
            owner?.unpin()
        }
    }

    private static let rootDeclaresBit: UInt8 = 0b100

    /// How a registration reads its key path: what its key path object is.
    enum ReaderKind: UInt8 {
        /// A `KeyPath<Object, Value>`: its value is the key path's own.
        case typed = 0
        /// A `PartialKeyPath<Object>` (of a `keyPaths:` registration): its value is boxed as `Any`.
        case partial = 1
        /// A string key path's `KeyPath<Object, Any?>`: its value is out of its optionals.
        case flattening = 2
    }

    /// How the registration reads its key path.
    @inline(__always)
    final var readerKind: ReaderKind {
        switch kindBits & 0b11 {
        case ReaderKind.typed.rawValue: .typed
        case ReaderKind.partial.rawValue: .partial
        default: .flattening
        }
    }

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

    /// Whether a set of the slot `key` (``LeafWord/slot(_:field:)``) is delivered from the setter's
    /// values: the slot is this registration's direct property or the leaf of its chain.
    @inline(__always)
    final func takesValues(ofSlot key: LeafWord) -> Bool {
        strategy(forSetOf: key).takesSetterValues
    }

    /// Whether the value of the slot `key` is this registration's value: it is its direct property or
    /// the leaf of its chain, whatever its form.
    @inline(__always)
    final func observesValue(ofSlot key: LeafWord) -> Bool {
        isDirect || (!key.isNone && leafWord == key)
    }

    /// Direct: the key path is exactly one `@Observed` slot of the root object, so a set's own old and
    /// new values are the change and nothing needs re-reading or re-tracking.
    final var isDirect: Bool {
        RegistrationGate(rawValue: gate.load(ordering: .relaxed)).isDirect
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

    // MARK: Notifications (overridden by the typed subclass; the direct ones are in KVOInfo+Direct)

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

    /// A change by `store` of a slot this registration re-reads: the three steps above, in order.
    func changeAround(store: () -> Void) {
        let captured = captureBeforeChange()
        store()
        changeEvaluated(captured: captured)
    }

    /// `changeAround(store:)` for a set of an `@Observed` property, with the setter's values: a chain
    /// whose link it is follows the new link rather than re-reading its key path (`TypedKVOInfo+Links`).
    func changeAround(link: LinkChange, store: () -> Void) {
        changeAround(store: store)
    }
}

/// A set of the `@Observed` property at `field` of `object`, whose registrar is `registrar`, with the
/// setter's old and new values (of `type`) by address, valid until the set returns.
struct LinkChange {
    /// Unretained: the setter holds it.
    let object: ObjectAddress
    /// Unretained: the object being set holds it.
    let registrar: Unretained<KVORegistrar>
    let field: Int
    let oldValue: ValueAddress
    let newValue: ValueAddress
    let type: Any.Type
    /// The one registration's strategy for it (``ChangeStrategy/chainLink``, ``ChangeStrategy/computed`` or
    /// ``ChangeStrategy/full``: not one that takes the setter's values).
    let strategy: ChangeStrategy

    init(
        _ object: AnyObject,
        _ registrar: KVORegistrar,
        _ field: Int,
        _ values: (ValueAddress, ValueAddress),
        _ type: Any.Type,
        _ strategy: ChangeStrategy
    ) {
        self.object = ObjectAddress(object)
        self.registrar = Unretained(registrar)
        (self.field, self.oldValue, self.newValue, self.type) = (field, values.0, values.1, type)
        self.strategy = strategy
    }

    /// Whether the set object's registrar is `registrar`.
    func isOn(_ registrar: Unretained<KVORegistrar>) -> Bool {
        self.registrar.id == registrar.id
    }

    /// Whether the set object has started deinitialising (a set made by its deinit).
    var objectIsDeinitialising: Bool {
        object.with { SwiftRuntime.isDeinitialising($0) }
    }
}
