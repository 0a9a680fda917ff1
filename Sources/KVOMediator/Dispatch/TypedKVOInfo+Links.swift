// A chain's link replaced (`\.a.b.c` observed, `b` set): the registration follows the new link to its
// leaf, reading each `@Observed` storage where its setter writes it, rather than evaluating its key path
// again under tracking. (Swift's key-path runtime costs about 2,500 instructions to apply `\.a.b.c`, and
// the evaluation path applies it twice: once untracked for the old value, once tracked for the new.)
//
// The old value is the old link's leaf, read before the set, where Cocoa reads it at will-change; the
// new value is the new link's leaf. Only the links after the changed one are subscribed again. What this
// path does not know to be a chain of `@Observed` object links, each object of the class the last
// evaluation read, takes the evaluation path (`changeAround(store:)`).
//
// It reads an `@Observed` storage's value by the storage's byte offset in its object (the offset its
// setter names it by, and the value is the storage's first field, as `ChainLinkTests` checks), an
// object link's value as an object's address, and a registrar by its field's offset: through
// `ObjectAddress`, which says why that is sound.

/// One link after the changed one: the slot the chain reads of it, its object in the old chain and in
/// the new one. (Addresses, unretained: each object is held by the link before it, the first by the
/// setter's old or new value, for as long as the set lasts.)
struct LinkStep {
    /// The byte offset of the `@Observed` storage read.
    var field: Int
    /// The registrar the registration depends on for this link (the old object's).
    var oldRegistrar: Unretained<KVORegistrar>
    var oldObject: ObjectAddress? = nil
    /// Where the object's class stores its registrar.
    var registrarOffset = 0
    var newObject: ObjectAddress? = nil
    var newRegistrar: Unretained<KVORegistrar>? = nil
    /// For the leaf of a key path through optional links (its value an `Optional` of the leaf's): the
    /// leaf's storage, which makes that optional.
    var optionalLeaf: (any InlineObservedStorage.Type)? = nil
    /// While `replaceLinks` moves the link's subscription: the old registrar, and the typed key path that
    /// first read the old slot (which goes with the subscription), each retained until it is done. (Here,
    /// not in lists of their own, which allocated for a tail of two links or more.)
    var heldRegistrar: Unretained<KVORegistrar>? = nil
    var wrapped: Unretained<AnyKeyPath>? = nil
}

extension TypedKVOInfo {
    /// The most links after the changed one this path follows (a longer tail is evaluated).
    private static var maximumTail: Int { 8 }

    /// Delivers a set of one of this chain's links (not its leaf) by following the new link, and returns
    /// true; or returns false, having done nothing, when this path does not apply. See above.
    /// `leafKey` is the registration's leaf (``SlotObserver/leaf``) as read now: the tail is followed only if it
    /// is still the slot the dependencies end at.
    func changeThroughLink(_ link: LinkChange, leafKey: LeafWord, store: () -> Void) -> Bool {
        // A typed key path; a prior record wants the old value before the set: the evaluation path sends it.
        guard readerKind == .typed, !options.contains(.prior), Self.holdsObject(link) else { return false }
        return withUnsafeTemporaryAllocation(of: LinkStep.self, capacity: Self.maximumTail) { buffer in
            let steps = buffer.baseAddress!
            let count = tail(after: link, leafKey: leafKey, into: steps)
            guard count > 0, let object = loadTypedObject() else { return false }
            guard followOldChain(from: link.oldValue, steps, count) else { return false }
            guard wantsOldValue else {
                finish(link, steps, count, object: object, old: nil, store: store)
                return true
            }
            let last = steps[count - 1]
            let oldValue = leafValue(of: last.oldObject, last)
            _withValuePointer(to: oldValue) { oldPointer in
                let old = ValueAddress(oldPointer)
                finish(link, steps, count, object: object, old: old, store: store)
            }
            return true
        }
    }

    /// Sets, follows the new link, and delivers the change with the old value at `old`, if asked for;
    /// evaluates the key path instead when the new chain cannot be followed (a link missing, an object
    /// of another class than the old chain's, a link set meanwhile).
    private func finish(
        _ link: LinkChange,
        _ steps: UnsafeMutablePointer<LinkStep>,
        _ count: Int,
        object: Object,
        old: ValueAddress?,
        store: () -> Void
    ) {
        store()
        // (Numbered after the set, as an evaluation is: one that read the chain before it is older.)
        let ticket = nextTicket()
        guard walkNewChain(from: link.newValue, steps, count), replaceLinks(steps, count, ticket: ticket) else {
            return reevaluate(old: old)
        }
        // Read after subscribing, as an evaluation reads each link after its getter subscribed to it; a
        // link set between the walk and the subscription is caught by walking again.
        let last = steps[count - 1]
        let newValue = leafValue(of: last.newObject, last)
        guard walkNewChain(from: link.newValue, steps, count, again: true) else { return reevaluate(old: old) }
        _withValuePointer(to: newValue) { newPointer in
            let new = ValueAddress(newPointer)
            if changesNothing(old: old, new: new, type: Value.self) { return }
            deliver { callDirect(object: object, oldValue: old, newValue: new, type: Value.self, isPrior: false) }
        }
    }

    /// Whether the changed property's value is an object (or an optional one): the object its chain
    /// reads next, at the value's address. (Its class's `@Observed` fields, from the runtime's metadata.)
    private static func holdsObject(_ link: LinkChange) -> Bool {
        ObservedFields.withLayout(of: link.object.type) { $0.link(atField: link.field)?.holdsObject ?? false }
    }

    /// Copies into `steps` the links of this chain after the changed one, as its dependencies list them
    /// (in the order read); returns how many, or 0 unless the dependencies are the chain whose leaf is
    /// `leafKey`, with the changed slot one of its links but the last, each link of another object.
    /// (A chain through one object twice, `\.next?.next?.value` on a node that is its own next, lists
    /// the repeated read once: its dependencies are not its links one for one, and it is evaluated.)
    private func tail(after link: LinkChange, leafKey: LeafWord, into steps: UnsafeMutablePointer<LinkStep>) -> Int {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        defer { lock.unlock() }
        guard !state.isClosed else { return 0 }
        let changed = link.registrar.id
        var found = false
        var count = 0
        for index in state.dependencies.indices {
            guard case .field(let field) = state.dependencies[index].slot else { return 0 }
            let registrar = state.dependencies[index].registrar
            if found {
                guard count < Self.maximumTail else { return 0 }
                (steps + count).initialize(to: LinkStep(field: field, oldRegistrar: registrar))
                count += 1
            } else if registrar.id == changed, field == link.field {
                found = true
            }
        }
        guard count > 0 else { return 0 }
        for index in state.dependencies.indices {
            let registrar = state.dependencies[index].registrarID
            for earlier in 0..<index where state.dependencies[earlier].registrarID == registrar { return 0 }
        }
        let last = state.dependencies[state.dependencies.count - 1].registrar
        return last.with { LeafWord.slot($0, field: steps[count - 1].field) } == leafKey
            ? count : 0
    }

    /// Walks the old chain from the old link's value: each object must be the one whose registrar the
    /// registration depends on, with an `@Observed` object link at the field read (the leaf: a `Value`).
    private func followOldChain(
        from value: ValueAddress,
        _ steps: UnsafeMutablePointer<LinkStep>,
        _ count: Int
    )
        -> Bool
    {
        var next = value.linkedObject()
        for index in 0..<count {
            guard let object = next else { return false }
            let field = steps[index].field
            let (registrarOffset, link) = ObservedFields.withLayout(of: object.type) {
                ($0.registrarOffset, $0.link(atField: field))
            }
            guard let registrarOffset,
                object.reference(atField: registrarOffset, as: KVORegistrar.self).id == steps[index].oldRegistrar.id
            else { return false }
            let isLeaf = index == count - 1
            guard let link else { return false }
            if !isLeaf {
                guard link.holdsObject else { return false }
            } else if link.valueType == Value.self {
                steps[index].optionalLeaf = nil
            } else if link.optionalValueType == Value.self {
                steps[index].optionalLeaf = link.inline
            } else {
                return false
            }
            steps[index].oldObject = object
            steps[index].registrarOffset = registrarOffset
            if !isLeaf { next = object.linkedObject(atField: field) }
        }
        return true
    }

    /// Finds the new chain's objects and their registrars; false at a missing link or at an object of
    /// another class than the old chain's there (which may read its properties otherwise). With
    /// `again`, only whether the walk finds the objects the first walk did.
    private func walkNewChain(
        from value: ValueAddress,
        _ steps: UnsafeMutablePointer<LinkStep>,
        _ count: Int,
        again: Bool = false
    ) -> Bool {
        var next = value.linkedObject()
        for index in 0..<count {
            guard let object = next else { return false }
            if again {
                guard object == steps[index].newObject else { return false }
            } else {
                guard object.type == steps[index].oldObject!.type else { return false }
                steps[index].newObject = object
                steps[index].newRegistrar = object.reference(
                    atField: steps[index].registrarOffset,
                    as: KVORegistrar.self
                )
            }
            if index < count - 1 { next = object.linkedObject(atField: steps[index].field) }
        }
        return true
    }

    /// The chain's value at its leaf `step` in the object at `object`: the `@Observed` storage's value,
    /// or for a key path through optional links that value as an optional.
    private func leafValue(of object: ObjectAddress?, _ step: LinkStep) -> Value {
        let address = object.unsafelyUnwrapped.field(step.field)
        guard let storage = step.optionalLeaf else { return address.pointer(to: Value.self).pointee }
        return optionalLeafValue(at: address, storage)
    }

    /// `leafValue` through optional links. (Apart: opening the storage's type looks up generic metadata
    /// wherever it is in a function.)
    @inline(never)
    private func optionalLeafValue(at address: FieldAddress, _ storage: any InlineObservedStorage.Type) -> Value {
        storage.valueAsOptional(at: address, as: Value.self)
    }
}

extension KVOInfo {
    /// After a set of one of a chain's links: the dependencies on the `count` links after it (the last
    /// ones listed, on `steps`' old registrars) become dependencies on the new chain's objects, and its
    /// leaf the new last link. True when done, or when there is nothing to do (closed, or a newer
    /// evaluation applied first); false, with nothing changed, when the dependencies are no longer the old
    /// links (the caller then evaluates).
    final func replaceLinks(_ steps: UnsafeMutablePointer<LinkStep>, _ count: Int, ticket: UInt16) -> Bool {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        defer {
            lock.unlock()
            // (Released unlocked: a last release runs the registrar's deinit, which takes the lock.)
            for index in 0..<count {
                steps[index].heldRegistrar.take()?.release()
                steps[index].wrapped.take()?.release()
            }
        }
        guard !state.isClosed, RegistrationState.isNewer(ticket, than: appliedTicket) else { return true }
        let first = state.dependencies.count - count
        guard first > 0 else { return false }
        for index in 0..<count {
            guard state.dependencies[first + index].registrar.id == steps[index].oldRegistrar.id,
                case .field(steps[index].field) = state.dependencies[first + index].slot
            else { return false }
        }
        // Each link of another object, as in `tail(after:leafKey:into:)`: a new chain that runs back into
        // an object it passed through is evaluated.
        for index in 0..<count {
            let registrar = steps[index].newRegistrar?.id
            for prefix in 0..<first where state.dependencies[prefix].registrar.id == registrar { return false }
            for earlier in 0..<index where steps[earlier].newRegistrar?.id == registrar { return false }
        }
        appliedTicket = ticket
        for index in 0..<count {
            let dependency = state.dependencies[first + index]
            guard steps[index].newRegistrar?.id != steps[index].oldRegistrar.id,
                let registrar = dependency.retainedRegistrar()
            else { continue }
            steps[index].heldRegistrar = registrar
            registrar.with { old in
                steps[index].wrapped = old.wrappedKeyPath(of: dependency.slot).map { Unretained(retaining: $0) }
                old.remove(self, for: dependency.slot)
            }
        }
        // (Each new link is listed where the old one was: the checks above found it listed nowhere else.)
        for index in 0..<count {
            let step = steps[index]
            let registrar = step.newRegistrar!
            state.relist(Dependency(registrar: registrar, slot: .field(step.field)), at: first + index)
            guard registrar.id != step.oldRegistrar.id else { continue }
            let objectType: AnyObject.Type = step.newObject!.type
            registrar.with { registrar in
                registrar.add(
                    self,
                    for: Access(
                        registrar: registrar,
                        slot: .field(step.field),
                        wrapped: step.wrapped?.object,
                        objectType: objectType
                    )
                )
            }
        }
        let last = steps[count - 1]
        let leafKey = last.newRegistrar!.with { LeafWord.slot($0, field: last.field) }
        setLeafWord(leafKey)
        return true
    }
}
