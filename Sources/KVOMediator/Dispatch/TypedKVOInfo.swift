import Foundation

/// A registration of a typed key path (or a partial one, read as `Any`) with its callback.
///
/// The public entry points create it where the types are concrete (it is usable from inlinable code),
/// so that its generic metadata is found once per call site rather than looked up per registration.
@usableFromInline
final class TypedKVOInfo<Object: KeyValueObservable, Value>: KVOInfo, @unchecked Sendable {
    /// How the observed value is read from the object.
    @usableFromInline
    enum Reader {
        /// A typed key path.
        case typed(KeyPath<Object, Value>)
        /// A partial key path, whose value is delivered as `Any`.
        case partial(PartialKeyPath<Object>)
        /// A string key path's subscript: its optional is flattened, so a value is delivered as itself.
        case flattening(KeyPath<Object, Any?>)

        var keyPath: AnyKeyPath {
            switch self {
            case .typed(let typed): typed
            case .partial(let partial): partial
            case .flattening(let flattening): flattening
            }
        }
    }

    /// - Parameter owner: A ``KVOInfoOwner`` (a controller), told when the object deinitialises.
    @usableFromInline
    init(
        object: __shared Object,
        reader: __shared Reader,
        options: KVOOptions,
        owner: __shared AnyObject?,
        box: __shared _DeliveryBox,
        onObjectDeinit: (() -> Void)? = nil,
        sameValues: __shared _SameValues? = nil
    ) {
        let kind: ReaderKind =
            switch reader {
            case .typed: .typed
            case .partial: .partial
            case .flattening: .flattening
            }
        let keyPath = reader.keyPath
        let directField = Self.knownField(of: reader, on: object)
        super.init(
            keyPath: keyPath,
            options: options,
            object: object,
            owner: owner,
            readerKind: kind,
            // (A key path known to be one property declares nothing: see `DirectSlotCache.isCacheable`.)
            rootDeclares: directField == nil && !type(of: object).keyPathsAffectingValue(for: keyPath).isEmpty,
            box: box
        )
        // A key path known to be one `@Observed` property is started as one (see `start`); any other that
        // keeps its last value gets its `Extras` (with room for the `LastValue`) now, before anything
        // else is stored in `extrasReference` and before any other thread can see the registration.
        // `.distinct`'s test goes there too.
        if let field = directField {
            // (Stored in place: a method call on `self` here retains it.)
            leaf.store(LeafWord.directField(field).bits, ordering: .relaxed)
            if let sameValues { _ = extrasReference.storeIfNil(Extras(sameValues: sameValues)) }
        } else if Self.keepsLastValue(options: options) || sameValues != nil {
            let keepsValue = Self.keepsLastValue(options: options)
            _ = extrasReference.storeIfNil(Extras(keepsValue: keepsValue, sameValues: sameValues))
        }
        self.onObjectDeinit = onObjectDeinit
    }

    override var objectTypeName: String { "\(Object.self)" }

    override func declaredName() -> String? {
        Object.keyPathName(for: keyPath)
    }

    override func directName() -> String? {
        guard isDirect, let field = leafWord.slotField else { return nil }
        return ObservedFields.name(at: field, in: Object.self)
    }

    override var isNamedByItsSlot: Bool {
        guard isDirect, let field = leafWord.slotField else { return false }
        return ObservedFields.holdsProperty(at: field, in: Object.self)
    }

    /// The key path, typed, when it was given as a typed one (not partial, not a string).
    private var typedKeyPath: KeyPath<Object, Value>? {
        readerKind == .typed ? KnownClass.cast(keyPath, to: KeyPath<Object, Value>.self) : nil
    }

    /// The observed object (see `KVOInfo.loadObject()`).
    /// (No `Optional.map`: unspecialised here, it cost 260 instructions a call in value witnesses.)
    func loadTypedObject() -> Object? {
        guard let object = loadObject() else { return nil }
        return KnownClass.cast(object, to: Object.self)
    }

    /// Reads the value, then what is declared to affect it, recursively, so that `tracker` sees what
    /// both read.
    func evaluate(_ object: Object, _ tracker: AccessTracker) -> Value {
        let value = read(object)
        readDeclared(of: object, tracker)
        return value
    }

    /// `evaluate` for a `Value` held as its bytes (see `readBytes`).
    func evaluateBytes(_ object: Object, _ tracker: AccessTracker) -> TrivialValueBytes {
        let bytes = readBytes(object)
        readDeclared(of: object, tracker)
        return bytes
    }

    /// Reads what is declared to affect the value, recursively, if the root declares anything.
    @inline(__always)
    private func readDeclared(of object: Object, _ tracker: AccessTracker) {
        if rootDeclares {
            // (The root object's registrar, which this registration holds: no retain of it.)
            _ = rootRegistrar.with { tracker.readDeclared(affecting: keyPath, of: object, on: $0) }
        }
    }

    /// Reads the key path while tracking, subscribing to every observable slot it reads; or, for a key
    /// path ``DirectSlotCache`` knows to be one `@Observed` property, subscribes to that property.
    ///
    /// - Throws: ``KVOError`` when nothing observable was read (the dispatcher then ends it).
    /// - Parameters:
    ///   - readsValue: Whether the caller uses the value read (for an `.initial` record, say); if not, a
    ///     cached key path is not read at all.
    ///   - reading: Given the value read while subscribing, if `readsValue`, as the start's last step,
    ///     with no lock held. (Not escaping: an optional closure's context was allocated at each start.)
    func start(on object: Object, readsValue: Bool, reading: (Value) -> Void) throws(KVOError) {
        if let field = leafWord.directField, let typed = typedKeyPath {
            setLeafWord(.none)
            start(on: object, field: field, keyPath: typed)
            guard readsValue else { return }
            // The property's value from its storage, which its getter would read (a key path known to be one
            // property is its wrapper's getter on this very class: see `DirectSlotCache`), with no key-path
            // runtime and nothing reported.
            if ObservedFields.holdsInline(Value.self, at: field, in: type(of: object)) {
                reading(FieldAddress(of: object, at: field).load(as: Value.self))
            } else {
                reading(untracked { object[keyPath: typed] })
            }
            return
        }
        let last = lastValue
        let ticket = nextTicket()
        let tracker = AccessTracker.reused(subscribing: self)
        defer { tracker.recycle() }
        let value = tracker.run { evaluate(object, tracker) }
        let accesses = tracker.accesses
        guard !accesses.isEmpty else {
            throw KVOError.nothingObservable(keyPath: keyPath, type: Object.self)
        }
        // (Reading only other objects, it still ends with the root object: see `prune`.)
        let leafKey = leafKey(of: accesses)
        prune(keeping: accesses, ticket: ticket, leafKey: leafKey) { applied in
            guard applied, let last else { return }
            last.with { $0.lastValue.keep(value) }
        }
        // A chain whole when it starts keeps its name for its records once a link is nil, or it ended.
        if accesses.count > 1, leafKey.isSlot { learnChainName(from: accesses) }
        if let slot = accesses.onlySlot(of: object.kvoRegistrar, readThrough: keyPath) {
            if let typed = typedKeyPath, case .field(let field) = slot,
                DirectSlotCache.isCacheable(typed, on: object, declares: rootDeclares)
            {
                DirectSlotCache.shared.record(field, of: typed, on: type(of: object))
            }
            markDirect()
        } else if isOneProperty(byName: accesses, on: object) {
            markDirect()
        }
        markStarted()
        if readsValue { reading(value) }
    }

    /// Whether this registration's string key path is one `@Observed` property of the object, which
    /// `accesses` (its evaluation's reads) read alone: its records are then made from the property's
    /// setter's own values, flattened as the string key path's subscript gives them (see `callDirect`).
    private func isOneProperty(byName accesses: [Access], on object: Object) -> Bool {
        guard readerKind == .flattening, let name = stringKeyPath, !name.contains("."), accesses.count == 1,
            accesses[0].registrar === object.kvoRegistrar, case .field(let field) = accesses[0].slot,
            case .field(let property)? = StringComponent.find(name, in: type(of: object))
        else { return false }
        return property.offset == field
    }

    /// Starts a registration whose key path is known to be the `@Observed` property stored at `field`
    /// (``DirectSlotCache``): subscribes to it, with no evaluation under tracking.
    private func start(on object: Object, field: Int, keyPath: KeyPath<Object, Value>) {
        let access = Access(
            registrar: object.kvoRegistrar,
            slot: .field(field),
            wrapped: keyPath,
            objectType: type(of: object)
        )
        subscribe(access)
        // Its slot, as an evaluation of a key path that is one property leaves it (it names it).
        leaf.store(LeafWord.slot(access.registrar, field: field).bits, ordering: .relaxed)
        markDirect()
        markStarted()
    }

    /// Delivers the `.initial` record, if asked for, synchronously.
    func deliverInitial(_ value: Value, to object: Object) {
        guard options.contains(.initial) else { return }
        // The record is built by the box's function, where its type is concrete, as a set's is: one of a
        // generic type made here looked up its metadata, and its value's, at each step.
        _withValuePointer(to: value) { pointer in
            deliverInitialRecord {
                callDirect(
                    object: object,
                    oldValue: nil,
                    newValue: ValueAddress(pointer),
                    type: Value.self,
                    isPrior: false
                )
            }
        }
    }

    override func priorCollection<Source: AnyObject, Elements>(
        object: Source,
        kind: KVOChangeKind,
        indexes: IndexSet?,
        oldElements: Elements?
    ) {
        if _slowPath(Self.transactionsMayRun), deferredInTransaction() { return }
        guard options.contains(.prior) else { return }
        _CollectionParts.withAddresses(of: oldElements, nil) { old, _ in
            let indexes = _KVOIndexes(indexes)
            priorCollection(
                object: object,
                parts: _CollectionParts(kind: kind, indexes: indexes, old: old, new: nil, type: Elements.self)
            )
        }
    }

    override func changeCollection<Source: AnyObject, Elements>(
        object: Source,
        kind: KVOChangeKind,
        indexes: IndexSet?,
        oldElements: Elements?,
        newElements: Elements?
    ) {
        // (In a transaction, `changeCollection(object:parts:)` notes it.)
        _CollectionParts.withAddresses(of: oldElements, newElements) { old, new in
            let indexes = _KVOIndexes(indexes)
            changeCollection(
                object: object,
                parts: _CollectionParts(kind: kind, indexes: indexes, old: old, new: new, type: Elements.self)
            )
        }
    }

    override func priorCollection(object: AnyObject, parts: _CollectionParts) {
        if _slowPath(Self.transactionsMayRun), deferredInTransaction() { return }
        guard options.contains(.prior) else { return }
        deliverCollectionRecord(parts.keeping(old: options.contains(.old), new: false), isPrior: true, changed: object)
    }

    override func changeCollection(object: AnyObject, parts: _CollectionParts) {
        // (Noted before the mutation; one announced before the transaction began is delivered as usual. After
        // it: see `linkAwaitsATransaction`.)
        if _slowPath(Self.transactionsMayRun),
            TransactionChanges.withOnThisThread({ $0.noteCollection(self, { DeferredCollectionChange(parts) }) })
                == true || linkStillAwaitsATransaction
        {
            return
        }
        let parts = parts.keeping(old: options.contains(.old), new: options.contains(.new))
        deliverCollectionRecord(parts, isPrior: false, changed: object)
    }

    /// Delivers a collection record: with the changed object for a direct registration, with the
    /// observed object for a chain ending at the collection.
    private func deliverCollectionRecord(_ parts: _CollectionParts, isPrior: Bool, changed: AnyObject) {
        if isDirect {
            deliver { callCollection(object: changed, parts, isPrior: isPrior) }
        } else if reachesLeaf(changed), let object = loadObject() {
            deliver { callCollection(object: object, parts, isPrior: isPrior) }
        }
    }

    override func deliverDeferred(old: Any?, collection: DeferredCollectionChange?) {
        deliverTransactionRecord(old: old, collection: collection)
    }

    override func captureBeforeChange() -> CapturedValue {
        if _slowPath(Self.transactionsMayRun), deferredInTransaction() { return .none }
        // (A copy, taken now: another change may replace the kept value before this one is evaluated.)
        if let last = lastValueBeforeThisChange, let kept = keptValue(last) { return .value(kept) }
        guard !options.isDisjoint(with: [.old, .prior, .distinct]), let object = loadTypedObject() else { return .none }
        let oldValue = readBeforeChange(object)
        return wantsOldValue ? .value(oldValue) : .none
    }

    /// The value before a change, read untracked, after sending the prior record if asked for.
    private func readBeforeChange(_ object: Object) -> Value {
        let oldValue = untracked { read(object) }
        if options.contains(.prior) {
            _withValuePointer(to: oldValue) { oldPointer in
                let old = ValueAddress(oldPointer)
                deliver { callDirect(object: object, oldValue: old, newValue: nil, type: Value.self, isPrior: true) }
            }
        }
        return oldValue
    }

    /// The old value captured boxed is opened rather than cast back (`as! Value`, a dynamic cast of 255
    /// instructions), unless its dynamic type is not `Value` (a value read as `Any`).
    override func changeEvaluated(captured: CapturedValue) {
        // (Noted before the change; one announced before the transaction began is delivered as usual.)
        if _slowPath(Self.transactionsMayRun), isDeferredInTransaction || linkStillAwaitsATransaction { return }
        guard case .value(let boxed) = captured else { return reevaluate(old: nil) }
        func open<Old>(_ old: Old) {
            if Old.self == Value.self {
                _withValuePointer(to: old) { reevaluate(old: ValueAddress($0)) }
            } else {
                _withValuePointer(to: old as! Value) { reevaluate(old: ValueAddress($0)) }
            }
        }
        _openExistential(boxed, do: open)
    }

    /// `captureBeforeChange`, `store`, `changeEvaluated`, with the old value kept as a `Value` rather
    /// than boxed and opened again (about 150 instructions).
    override func changeAround(store: () -> Void) {
        if _slowPath(Self.transactionsMayRun), deferredInTransaction(store: store) { return }
        evaluateAround(store: store)
    }

    /// Notes a change by `store` (and makes it) if this thread runs a transaction; whether it does, or
    /// another thread's transaction takes it (see `linkAwaitsATransaction`).
    private func deferredInTransaction(store: () -> Void) -> Bool {
        if deferredInOwnTransaction() {
            store()
            return true
        }
        guard linkAwaitsATransaction else { return false }
        store()
        // (Unless that transaction delivered while the value was stored: then as usual.)
        if !linkStillAwaitsATransaction { reevaluate(old: nil) }
        return true
    }

    /// Notes a change about to be made, with the value now, if this thread runs a transaction; whether it
    /// does.
    /// (Or another thread's transaction takes it: see `linkAwaitsATransaction`.)
    private func deferredInTransaction() -> Bool {
        deferredInOwnTransaction() || linkAwaitsATransaction
    }

    @inline(never)
    private func deferredInOwnTransaction() -> Bool {
        TransactionChanges.withOnThisThread { $0.note(self) { DeferredValue(boxing: currentValueBoxed()) } } != nil
    }

    private func evaluateAround(store: () -> Void) {
        guard !options.isDisjoint(with: [.old, .prior, .distinct]), let object = loadTypedObject() else {
            store()
            return reevaluate(old: nil)
        }
        evaluateAround(object, store: store)
    }

    /// `evaluateAround(store:)` for a set of the observed object itself, which the setter holds (`object`,
    /// borrowed): it is read and delivered as it is, not loaded through the registration's pin, which takes
    /// the gate and a retain. (Not once cancelled, nor in its deinit: a load would not give it then.)
    private func evaluateAround(setOf object: Object, store: () -> Void) {
        guard !options.isDisjoint(with: [.old, .prior, .distinct]) else {
            store()
            return reevaluate(object, old: nil, keeping: lastValue, oldIsKept: false)
        }
        evaluateAround(object, store: store)
    }

    private func evaluateAround(_ object: Object, store: () -> Void) {
        // A computed property's old value is the one it last delivered, when kept (`LastValue`).
        if let last = lastValueBeforeThisChange {
            store()
            return reevaluate(object, old: nil, keeping: last, oldIsKept: true)
        }
        evaluateAround(readingFirst: object, store: store)
    }

    /// `evaluateAround(_:store:)` with the old value read before the change. (Out of line: its room for a
    /// value of the generic type is then made only when it runs.)
    @inline(never)
    private func evaluateAround(readingFirst object: Object, store: () -> Void) {
        let oldValue = readBeforeChange(object)
        store()
        if wantsOldValue {
            _withValuePointer(to: oldValue) { reevaluate(old: ValueAddress($0)) }
        } else {
            reevaluate(old: nil)
        }
    }

    /// A set of one of a chain's links (``ChangeStrategy/chainLink``) is delivered by following the new
    /// link where that applies (`TypedKVOInfo+Links`); anything else is evaluated.
    override func changeAround(link: LinkChange, store: () -> Void) {
        // A set of another object that is deinitialising, reached through a weak link (which reads nil
        // already), changes nothing this reads: the link's announcement of the death re-reads it.
        // (`reachesLeaf`'s test, written out: its object argument would be retained and released here
        // on every link set, where the flag alone is asked in the common case.)
        if readsWeakLink.load(ordering: .relaxed), !link.isOn(rootRegistrar), link.objectIsDeinitialising {
            return store()
        }
        // (The leaf word read again: the chain it names is what the new link must be followed to.)
        if _slowPath(Self.transactionsMayRun), deferredInTransaction(store: store) {
            // Until this thread's transaction delivers it, the chain follows its old links.
            TransactionChanges.withOnThisThread { $0.noteLinkReplaced(self) }
            return
        }
        if link.strategy == .chainLink, changeThroughLink(link, leafKey: leafWord, store: store) {
            return
        }
        if link.isOn(rootRegistrar), !isCancelled, !link.objectIsDeinitialising {
            return link.object.with(as: Object.self) { evaluateAround(setOf: $0, store: store) }
        }
        evaluateAround(store: store)
    }
}

extension TypedKVOInfo {
    /// The storage offset of the `@Observed` property that `reader`'s key path, a typed one, is known to
    /// be on `object`'s class (``DirectSlotCache``), if it is.
    static func knownField(of reader: Reader, on object: Object) -> Int? {
        guard case .typed(let typed) = reader else { return nil }
        return DirectSlotCache.shared.field(of: typed, on: type(of: object))
    }
}
