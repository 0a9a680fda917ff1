import KVOMediator

/// FBKVOController's rules for registrations and lifetimes: the first registration of an object and
/// key in a controller wins; `.initial` is delivered by `observe`; a controller ends its registrations
/// when it goes; an observer that has gone is never called; an object's deinit ends the registrations
/// on it; a retaining controller keeps what it observes alive.
extension ReferenceModel {
    /// Applies one operation and returns what it must produce.
    mutating func apply(_ operation: ModelOperation) -> ModelStep {
        step = ModelStep()
        firedAction = nil
        let liveBefore = Set(registrations.keys)
        let streamCounts = streamSlots.map { $0?.expected.count ?? 0 }
        if !applyWrite(operation) { applyStructural(operation) }
        let armedBefore = firedAction
        if let action = firedAction { performArmed(action) }
        settleLifetimes()
        // A weak link's break, announced as its last link goes, may fire the armed action too.
        if armedBefore == nil, let action = firedAction {
            performArmed(action)
            settleLifetimes()
        }
        if firedAction != nil {
            step.cutShort = liveBefore.subtracting(registrations.keys)
            for slot in streamSlots.indices {
                guard let stream = streamSlots[slot], step.cutShort.contains(stream.registration) else { continue }
                streamSlots[slot]!.required = stream.required ?? streamCounts[slot]
            }
        }
        return step
    }

    private mutating func applyStructural(_ operation: ModelOperation) {
        switch operation {
        case .newRoot(let slot): rootSlots[slot] = newObject(.root(RootState()))
        case .dropRoot(let slot): rootSlots[slot] = nil
        case .newLinkA(let slot): linkASlots[slot] = newObject(.linkA(b: nil))
        case .dropLinkA(let slot): linkASlots[slot] = nil
        case .newLinkB(let slot, let value): linkBSlots[slot] = newObject(.linkB(LinkBState(value: value)))
        case .dropLinkB(let slot): linkBSlots[slot] = nil
        case .newObserver(let slot, let retains):
            let observer = nextObserver
            nextObserver += 1
            dropObserver(in: slot)
            observerSlots[slot] = observer
            observerControllers[observer] = newController(for: observer, retains: retains)
        case .dropObserver(let slot): dropObserver(in: slot)
        case .newController(let slot, let retains):
            guard let observer = observerSlots[slot] else { break }
            let controller = newController(for: observer, retains: retains)
            if let old = observerControllers[observer] { endController(old) }
            observerControllers[observer] = controller
        case .dropController(let slot): performArmed(.dropController(slot))
        case .orphanController(let slot):
            guard let observer = observerSlots[slot] else { break }
            if let controller = observerControllers.removeValue(forKey: observer) {
                orphans.append(controller)
                controllers[controller]!.observer = nil
            }
            observerSlots[slot] = nil
        case .dropOrphans:
            for controller in orphans { endController(controller) }
            orphans = []
        case .observe(let slot, let form, let target, let keys, let options):
            observe(controller(ofObserverIn: slot), form: form, target: target, keys: keys, options: options)
        case .unobserveKey(let slot, let target, let key, let byString):
            guard let controller = controller(ofObserverIn: slot), let object = object(target) else { break }
            let whole = chainIsWhole(key, on: object)
            endRegistrations {
                $0.controller == controller && $0.object == object && $0.key == key
                    && (($0.form == .string) == byString || !key.isChain || whole)
            }
        case .unobserveObject(let slot, let target):
            guard let controller = controller(ofObserverIn: slot), let object = object(target) else { break }
            endRegistrations { $0.controller == controller && $0.object == object }
        case .unobserveAll(let slot):
            guard let controller = controller(ofObserverIn: slot) else { break }
            endRegistrations { $0.controller == controller }
        case .newToken(let slot, let target, let key, let options):
            let id = newRegistrationNumber()
            guard let object = object(target) else { break }
            register(ModelRegistration(id: id, front: .token, object: object, key: key, options: options))
            if let old = tokenSlots[slot] { end(old) }
            tokenSlots[slot] = id
        case .invalidateToken(let slot): performArmed(.invalidateToken(slot))
        case .dropToken(let slot):
            if let token = tokenSlots[slot] { end(token) }
            tokenSlots[slot] = nil
        case .openValues(let slot, let target, let key):
            let id = newRegistrationNumber()
            guard let object = object(target), streamSlots[slot] == nil else { break }
            let registration = ModelRegistration(
                id: id,
                front: .valueStream(slot: slot),
                object: object,
                key: key,
                options: [.new]
            )
            registrations[id] = registration
            streamSlots[slot] = ModelStreamState(
                registration: id,
                expected: [ModelRecord(new: value(of: key, on: object))]
            )
        case .openChanges(let slot, let target, let key, let options):
            let id = newRegistrationNumber()
            guard let object = object(target), streamSlots[slot] == nil else { break }
            let front = ModelFront.changeStream(slot: slot)
            registrations[id] = ModelRegistration(
                id: id,
                front: front,
                object: object,
                key: key,
                options: options.subtracting(.initial)
            )
            let initial = options.contains(.new) ? value(of: key, on: object) : nil
            streamSlots[slot] = ModelStreamState(
                registration: id,
                expected: options.contains(.initial) ? [ModelRecord(new: initial)] : []
            )
        case .closeStream(let slot):
            guard let stream = streamSlots[slot] else { break }
            end(stream.registration)
            step.closedStream = stream
            streamSlots[slot] = nil
        case .arm(let id, let action):
            if registrations[id] != nil { armed = (id, action) }
        case .expectNoRegistrations:
            precondition(registrations.isEmpty, "the model's teardown left registrations")
        case .deliverCoalesced: runLane()
        default: preconditionFailure("not a structural operation: \(operation)")
        }
    }

    /// Whether a registration or an unobserve in one form (string or typed) reaches a registration of the
    /// same key in the other: always, except for a chain that cannot be followed to its end now (a link
    /// is nil), when the typed form's names are not known.
    func formsMeet(_ isString: Bool, _ otherIsString: Bool, key: ModelKey, on object: Int) -> Bool {
        isString == otherIsString || !key.isChain || chainIsWhole(key, on: object)
    }

    /// Whether each link of the chain `key` of the root `object` is there (true for a key that is no chain).
    func chainIsWhole(_ key: ModelKey, on object: Int) -> Bool {
        guard key.isChain else { return true }
        switch key {
        case .peerValue: return root(object).peer != nil
        default: return chainEnd(of: object) != nil
        }
    }

    /// Registers each key as its own registration, unless the controller already observes that key
    /// of the object in a form that meets this one (the first registration wins); each key counts as an
    /// attempt either way.
    private mutating func observe(
        _ controller: Int?,
        form: ObserveForm,
        target: ModelTarget,
        keys: [ModelKey],
        options: KVOOptions
    ) {
        for key in keys {
            let id = newRegistrationNumber()
            guard let controller, let object = object(target) else { continue }
            let observed = registrations.values.contains {
                $0.controller == controller && $0.object == object && $0.key == key
                    && formsMeet($0.form == .string, form == .string, key: key, on: object)
            }
            if observed { continue }
            let front = ModelFront.controller(controller, form)
            if form == .coalesced {
                register(
                    ModelRegistration(
                        id: id,
                        front: front,
                        object: object,
                        key: key,
                        options: options.union([.old, .new]),
                        coalescing: options
                    )
                )
            } else {
                register(ModelRegistration(id: id, front: front, object: object, key: key, options: options))
            }
        }
    }

    /// Adds a registration and delivers its `.initial` record, if asked for.
    private mutating func register(_ registration: ModelRegistration) {
        registrations[registration.id] = registration
        let options = registration.options
        guard options.contains(.initial) else { return }
        let value = value(of: registration.key, on: registration.object)
        deliver(registration.id, ModelRecord(new: options.contains(.new) ? value : nil))
    }

    mutating func performArmed(_ action: ArmedAction) {
        switch action {
        case .dropObserver(let slot): dropObserver(in: slot)
        case .dropController(let slot):
            guard let observer = observerSlots[slot] else { break }
            if let controller = observerControllers.removeValue(forKey: observer) { endController(controller) }
        case .invalidateToken(let slot):
            if let token = tokenSlots[slot] { end(token) }
        }
    }

    /// Ends what no longer lives: objects nothing holds (slots, live objects' links, retaining
    /// controllers' registrations), and the registrations on them.
    private mutating func settleLifetimes() {
        var pending = (rootSlots + linkASlots + linkBSlots).compactMap { $0 }
        for registration in registrations.values {
            if let controller = registration.controller, controllers[controller]!.retains {
                pending.append(registration.object)
            }
        }
        var alive = Set<Int>()
        while let id = pending.popLast() {
            guard alive.insert(id).inserted else { continue }
            switch objects[id]! {
            case .root(let state):
                if let a = state.a { pending.append(a) }
                pending += state.crew
                pending += state.squad
            case .linkA(let b): if let b { pending.append(b) }
            case .linkB: break
            }
        }
        let dead = Set(objects.keys).subtracting(alive)
        announceMaybe(deadPeersOf: dead)
        for id in dead { objects[id] = nil }
        endRegistrations { dead.contains($0.object) }
        breakWeakLinks(to: dead)
    }

    /// Each live root whose weak `peer` was released announces it once, as a set from nil to nil: its
    /// weak reference already reads nil while the last link deinitialises, so the old value is nil too.
    private mutating func breakWeakLinks(to dead: Set<Int>) {
        for id in objects.keys.sorted() {
            guard case .root(let state)? = objects[id], let peer = state.peer, dead.contains(peer) else { continue }
            updateRoot(id) { $0.peer = nil }
            change(ModelSlot(object: id, field: .peer), comparesValues: false) { _ in }
        }
    }

    /// A root and its weak `peer` released at once (a retaining controller letting both go) deinitialise
    /// in an order nobody states: if the peer goes first, the root, still alive for a moment, announces
    /// it. So its registrations of the peer may receive that announcement or not: it is expected, and
    /// only what they had received before is required. (The generator arms no registration that reads
    /// a peer, so that such a record fires nothing.)
    private mutating func announceMaybe(deadPeersOf dead: Set<Int>) {
        for id in dead.sorted() {
            guard case .root(let state)? = objects[id], let peer = state.peer, dead.contains(peer) else { continue }
            let slot = ModelSlot(object: id, field: .peer)
            for registration in registrations(reading: slot) {
                switch registration.front {
                case .valueStream(let stream), .changeStream(let stream):
                    streamSlots[stream]!.required = streamSlots[stream]!.required ?? streamSlots[stream]!.expected.count
                case .controller, .token:
                    step.certain[registration.id] =
                        step.certain[registration.id] ?? step.expected[registration.id]?.count ?? 0
                }
            }
            // As `breakWeakLinks(to:)`: the weak reference reads nil already, so the old value is nil too.
            updateRoot(id) { $0.peer = nil }
            change(slot, comparesValues: false) { _ in }
        }
    }

    private mutating func newObject(_ state: ObjectState) -> Int {
        let id = nextObject
        nextObject += 1
        objects[id] = state
        return id
    }

    private mutating func newController(for observer: Int, retains: Bool) -> Int {
        let id = nextController
        nextController += 1
        controllers[id] = ModelControllerState(observer: observer, retains: retains)
        return id
    }

    mutating func newRegistrationNumber() -> Int {
        let id = nextRegistration
        nextRegistration += 1
        return id
    }

    private mutating func dropObserver(in slot: Int) {
        guard let observer = observerSlots[slot] else { return }
        observerSlots[slot] = nil
        if let controller = observerControllers.removeValue(forKey: observer) { endController(controller) }
    }

    private mutating func endController(_ controller: Int) {
        controllers[controller] = nil
        endRegistrations { $0.controller == controller }
    }

    private mutating func endRegistrations(where matches: (ModelRegistration) -> Bool) {
        for registration in registrations.values where matches(registration) { end(registration.id) }
    }

    /// The operations that end everything after a program: streams, tokens, controllers and
    /// observers, a check that nothing is left registered, then the objects.
    func teardown() -> [ModelOperation] {
        var operations: [ModelOperation] = lane.order.isEmpty ? [] : [.deliverCoalesced]
        operations += streamSlots.indices.filter { streamSlots[$0] != nil }.map { .closeStream(slot: $0) }
        operations += tokenSlots.indices.filter { tokenSlots[$0] != nil }.map { .dropToken(slot: $0) }
        if !orphans.isEmpty { operations.append(.dropOrphans) }
        operations += observerSlots.indices.filter { observerSlots[$0] != nil }.map { .dropObserver(slot: $0) }
        operations.append(.expectNoRegistrations)
        operations += rootSlots.indices.filter { rootSlots[$0] != nil }.map { .dropRoot(slot: $0) }
        operations += linkASlots.indices.filter { linkASlots[$0] != nil }.map { .dropLinkA(slot: $0) }
        operations += linkBSlots.indices.filter { linkBSlots[$0] != nil }.map { .dropLinkB(slot: $0) }
        return operations
    }
}
