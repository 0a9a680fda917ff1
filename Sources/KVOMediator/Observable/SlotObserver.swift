import Foundation
import Synchronization

/// What a registrar and a tracker know of a registration: the one type a layer below the dispatcher
/// names for it. A registrar's table holds these, and calls them as its slots change; a tracker subscribes
/// its registration through one. So the layers call one way (front ends → dispatcher → registrations →
/// tracking → registrar): the registration (`KVOInfo`, in Dispatch) is a subclass, and overrides what a
/// registration does; a registrar reaches up only through this class.
///
/// It holds what a registrar decides with, under its lock, on every set: the gate (may a callback start:
/// ``RegistrationGate``), the leaf (whose values are the registration's: ``LeafWord``) and how the key
/// path is read; from them, how a set reaches it (``ChangeStrategy``), with no call. What the
/// registration then does is one call through the class's table (`setDirect`, `changeAround`, …).
///
/// A class, not a protocol: a table holds one word per registration, where an existential would be two
/// words and a witness table, and a registrar's hot path reads the gate and the leaf in place.
@usableFromInline
class SlotObserver: _KeyPathHolder, @unchecked Sendable {  // atomics; the rest is a registration's
    /// The gate's word (see ``RegistrationGate``): whether a callback may start, and how many run.
    let gate = Atomic<Int>(0)
    /// A ``LeafWord`` (read and written as one through ``leafWord``): the slot whose value is this
    /// registration's value, when its key path is a chain of `@Observed` properties whose links are all
    /// there; a set of that slot is then delivered, for a typed key path, from the setter's own old and new
    /// values, as a direct registration's is: nothing is re-read and nothing re-subscribed, since the links
    /// before it did not change (see ``ChangeStrategy``); and a collection mutation of it delivers its kind
    /// and indexes. Or none, or that the last
    /// reads were no chain, or (no setter reaches a registration before it starts) its direct field.
    /// Written by the newest evaluation.
    let leaf = Atomic<UInt>(0)
    /// The ticket of the newest evaluation applied (see `appliedTicket`).
    let appliedTicketWord = Atomic<UInt16>(0)
    /// How the registration reads its key path (``ReaderKind``), in the low two bits; whether it sends
    /// prior records (`sendsPriorBit`); the other bits are the registration's.
    let kindBits: UInt8
    /// Whether a thread has ever entered the gate through its pass (``GatePasses``): set under the lock
    /// the pass is taken under, so that a canceller that finds it unset need not read the passes.
    let everPassed = Atomic<Bool>(false)

    init(_ keyPath: AnyKeyPath, kindBits: UInt8) {
        self.kindBits = kindBits
        super.init(keyPath)
    }

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

    /// Direct: the key path is exactly one `@Observed` slot of the root object, so a set's own old and
    /// new values are the change and nothing needs re-reading or re-tracking.
    @inline(__always)
    final var isDirect: Bool {
        RegistrationGate(rawValue: gate.load(ordering: .relaxed)).isDirect
    }

    /// The leaf word (``leaf``), as what it says.
    @inline(__always)
    final var leafWord: LeafWord {
        LeafWord(bits: leaf.load(ordering: .relaxed))
    }

    /// The ticket of the newest evaluation applied: written under `StripedLocks.lock(for: self)`, and
    /// read under it; atomic so that a re-evaluation can also read it, as a hint, before taking the lock
    /// (``AccessTracker/expect(dependenciesOf:)``).
    final var appliedTicket: UInt16 {
        get { appliedTicketWord.load(ordering: .relaxed) }
        set { appliedTicketWord.store(newValue, ordering: .relaxed) }
    }

    /// Enters the gate unless cancelled: a callback may then run until `leave()`.
    @inline(__always)
    final func tryEnter() -> Bool {
        let entered: Void? = updateGate { state in
            guard case .enter(let next) = state.entering() else { return nil }
            return (next, ())
        }
        return entered != nil
    }

    /// Applies `transition` to the gate in one atomic step (again, if another thread changed it meanwhile),
    /// and returns its result; nil, changing nothing, if `transition` gives none.
    @inline(__always)
    final func updateGate<Result>(
        _ transition: (RegistrationGate) -> (next: RegistrationGate, result: Result)?
    ) -> Result? {
        var word = gate.load(ordering: .relaxed)
        while true {
            guard let (next, result) = transition(RegistrationGate(rawValue: word)) else { return nil }
            let (exchanged, original) = gate.compareExchange(
                expected: word,
                desired: next.rawValue,
                ordering: .acquiringAndReleasing
            )
            if exchanged { return result }
            word = original
        }
    }

    /// How a set entered a registration's gate through its thread's pass (``GatePasses``).
    enum PassEntry {
        /// In, through the pass: the set leaves through it (`leave(passed: true)`).
        case entered
        /// Cancelled: the pass is being given back, and the set, once it has released the registrar's lock,
        /// finishes giving it back (`givePassBack()`) before anything else.
        case refused
        /// The thread's pass is taken (or it has none): the set enters through the gate's count.
        case notTaken
    }

    /// Enters the gate through this thread's pass (see ``GatePasses``), under the lock of a registrar
    /// whose table lists this registration, unless cancelled or the thread's pass is taken.
    @inline(__always)
    final func tryPass() -> PassEntry {
        // (Noted before the pass is written, as what a canceller reads it with: see `GatePasses`.)
        if !everPassed.load(ordering: .relaxed) { everPassed.store(true, ordering: .relaxed) }
        guard SwiftRuntime.takeGatePass(self) else { return .notTaken }
        // (Read after the pass is written: see `GatePasses`.)
        if _slowPath(RegistrationGate(rawValue: gate.load(ordering: .relaxed)).isCancelled) {
            // (Given back as any pass is, but what it may find left to it is not done under the lock.)
            SwiftRuntime.markGatePassLeaving(self)
            return .refused
        }
        return .entered
    }

    /// Finishes giving back this thread's pass into the gate, refused by `tryPass()`: releases what a
    /// canceller left to the last thread out, if that is this one.
    func givePassBack() { subclassOverrides() }

    /// The strategy for a set of the slot `key` (see ``ChangeStrategy``).
    @inline(__always)
    final func strategy(forSetOf key: LeafWord) -> ChangeStrategy {
        ChangeStrategy.choose(isDirect: isDirect, leaf: leafWord, set: key, readerKind: readerKind)
    }

    /// ``strategy(forSetOf:)`` for the `@Observed` property at `field` of `registrar`, whose key is made
    /// only for a registration that is not direct.
    @inline(__always)
    final func strategy(forField field: Int, of registrar: KVORegistrar) -> ChangeStrategy {
        if isDirect { return .direct }
        return ChangeStrategy.choose(
            isDirect: false,
            leaf: leafWord,
            set: .slot(registrar, field: field),
            readerKind: readerKind
        )
    }

    /// Whether a set of the slot `key` (``LeafWord/slot(_:field:)``) is delivered from the setter's
    /// values: the slot is this registration's direct property or the leaf of its typed chain.
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

    // MARK: What the registration does (each overridden by `KVOInfo`)

    /// A whole set of the slot this registration takes values of (``takesValues(ofSlot:)``), already
    /// inside the gate (entered under the registrar's lock, through this thread's pass if `passed`): the
    /// prior record, `store`, the change record; then it leaves the gate.
    func setDirect(
        object: AnyObject,
        oldValue: ValueAddress,
        newValue: ValueAddress,
        type: Any.Type,
        passed: Bool,
        store: () -> Void
    ) {
        subclassOverrides()
    }

    /// A change by `store` of a slot this registration re-reads (computed, a chain's link), with the
    /// setter's values (`link`).
    func changeAround(link: LinkChange, store: () -> Void) { subclassOverrides() }

    /// Whether this thread's transaction has deferred a record of this registration already.
    var isDeferredInTransaction: Bool { subclassOverrides() }

    /// A set of the `@Observed` property at `field` in this thread's transaction, from the value at `old` (a
    /// `type`), asked under the registrar's lock when this is the slot's one registration and takes the
    /// setter's values: whether it noted the change for the transaction's end (a direct registration does).
    func notedSetInTransaction(field: Int, old: ValueAddress, type: Any.Type) -> Bool { subclassOverrides() }

    /// The registration as a trace shows it (``KVOTrace``).
    var traced: KVOTraceEntry.Registration { subclassOverrides() }

    /// Whether every record must carry the whole value (value streams): a collection mutation is then
    /// delivered as a setting.
    var wantsWholeValues: Bool { subclassOverrides() }

    /// Before a set of a slot it takes values of (see `takesValues(ofSlot:)`), with several on the slot:
    /// the prior record, if asked for.
    func priorDirect(object: AnyObject, oldValue: ValueAddress, newValue: ValueAddress, type: Any.Type) {
        subclassOverrides()
    }

    /// After such a set: the change record.
    func changeDirect(object: AnyObject, oldValue: ValueAddress, newValue: ValueAddress, type: Any.Type) {
        subclassOverrides()
    }

    /// Before any other change: sends the prior record and returns the old value, if asked for.
    func captureBeforeChange() -> CapturedValue { subclassOverrides() }

    /// After any other change: re-reads the key path (refreshing dependencies) and delivers.
    func changeEvaluated(captured: CapturedValue) { subclassOverrides() }

    /// Whether it sends a prior record before each change (`.prior`), a bit of `kindBits` read in place:
    /// asked before a call for the prior record (a collection mutation's generic `priorCollection`, a
    /// set's `priorDirect` to each of many registrations), which alone costs more than the question.
    @inline(__always)
    final var sendsPriorRecords: Bool { kindBits & Self.sendsPriorBit != 0 }

    /// The bit of `kindBits` for `sendsPriorRecords`.
    static let sendsPriorBit: UInt8 = 0b1000

    /// Before a collection mutation of the slot whose value is this registration's: the prior record.
    func priorCollection<Object: AnyObject, Elements>(
        object: Object,
        kind: KVOChangeKind,
        indexes: IndexSet?,
        oldElements: Elements?
    ) {
        subclassOverrides()
    }

    /// `priorCollection` with the elements given by address (a proxy's mutation of its own storage).
    func priorCollection(object: AnyObject, parts: _CollectionParts) {
        subclassOverrides()
    }

    /// `changeCollection` with the elements given by address (a proxy's mutation of its own storage).
    func changeCollection(object: AnyObject, parts: _CollectionParts) {
        subclassOverrides()
    }

    /// A whole mutation of the collection at a slot whose one registration this is and takes its kind
    /// (see `takesCollectionKind`), already inside the gate (entered under the registrar's lock, through
    /// this thread's pass if `passed`): the prior record, `apply`, the change record; then it leaves the gate.
    /// `apply` runs no code of the user's, and this thread runs no transaction (see `mutateCollection`).
    func mutateCollectionDirect(
        object: AnyObject,
        parts: inout _CollectionParts,
        passed: Bool,
        apply: () -> Void
    ) {
        subclassOverrides()
    }

    /// After a collection mutation of that slot: the record with kind and indexes.
    func changeCollection<Object: AnyObject, Elements>(
        object: Object,
        kind: KVOChangeKind,
        indexes: IndexSet?,
        oldElements: Elements?,
        newElements: Elements?
    ) {
        subclassOverrides()
    }

    /// The registrar with this identity is deinitialising: its slots are gone (a root's ends the
    /// registration; a link's re-evaluates the chain).
    func registrarDidDeinit(_ registrarID: ObjectIdentifier) { subclassOverrides() }

    // MARK: An evaluation's reads (the tracker's side)

    /// Subscribes to the slot `access` read, at once (before the getter returns its value).
    func subscribe(_ access: Access) { subclassOverrides() }

    /// Marks it as one that reads a link that may be weak (an `@ObservedWeak` property, custom storage).
    func noteReadsWeakLink() { subclassOverrides() }

    /// Copies the dependencies into the first elements of `expected` and the applied ticket into
    /// `since`, and returns how many there are, when each is an `@Observed` slot; else returns 0.
    func copyFieldDependencies(
        into expected: inout [(registrar: ObjectIdentifier, field: Int)],
        since: inout UInt16
    )
        -> Int
    {
        subclassOverrides()
    }

    /// Gives `record` a read of each of the first `count` of `expected` (copied when the applied ticket
    /// was `since`), when no evaluation was applied since and each is still a dependency; else false.
    func recordListed(
        _ expected: [(registrar: ObjectIdentifier, field: Int)],
        count: Int,
        since: UInt16,
        _ record: (Access) -> Void
    ) -> Bool {
        subclassOverrides()
    }
}

/// Stops in a member every registration overrides (``SlotObserver``).
private func subclassOverrides(_ function: StaticString = #function) -> Never {
    preconditionFailure("KVOMediator: SlotObserver.\(function) is overridden by every registration")
}
