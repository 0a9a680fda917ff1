/// The slots a registration depends on: subscribed as its key path is read, pruned to what each
/// evaluation read, dropped when it ends. Guarded by the registration's striped lock.
extension KVOInfo {
    /// (Acquiring and releasing: an evaluation with a later ticket sees every store made before an
    /// earlier ticket was taken, so the newest evaluation, whose value a `LastValue` keeps, read them.)
    final func nextTicket() -> UInt16 {
        tickets.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
    }

    /// Adds a dependency and subscribes to it; called by the tracker as each read happens.
    final func subscribeToRead(_ access: Access) {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        defer { lock.unlock() }
        subscribeLocked(access)
    }

    /// Adds a dependency and subscribes to it, unless it is already listed or the registration is
    /// closed. Called with this registration's striped lock held; `access` keeps its registrar alive.
    func subscribeLocked(_ access: Access) {
        if state.list(access) { access.registrar.add(self, for: access) }
    }

    /// Brings the dependencies to what an evaluation read, unless a newer evaluation already did
    /// (``RegistrationState/apply(reads:ticket:applied:root:)``), and carries out what that changed at the
    /// registrars. `leafKey` is the evaluation's leaf (``leafKey(of:)``).
    ///
    /// The caller holds the root object, so its registrar is alive, and `accesses` holds the others.
    /// `underLock` runs under the striped lock, told whether the evaluation was applied (it was the newest).
    final func prune(
        keeping accesses: [Access],
        ticket: UInt16,
        leafKey: LeafWord = .none,
        underLock: (_ applied: Bool) -> Void = { _ in }
    ) {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        var held = InlineList<Unretained<KVORegistrar>>()
        switch state.apply(reads: accesses, ticket: ticket, applied: appliedTicket, root: rootRegistrar) {
        case .stale:
            underLock(false)
        case .same:
            // The common case: the evaluation read what the last one did (each read subscribed
            // already, finding it listed), so only the ticket and the leaf move on.
            appliedTicket = ticket
            if leafWord != leafKey { setLeafWord(leafKey) }
            underLock(true)
        case .changed(let drop, let add):
            appliedTicket = ticket
            drop.forEachElement { dependency in
                guard let registrar = dependency.retainedRegistrar() else { return }
                registrar.with { $0.remove(self, for: dependency.slot) }
                held.append(registrar)
            }
            add.forEachElement { subscription in
                switch subscription {
                case .read(let index): accesses[index].registrar.add(self, for: accesses[index])
                case .rootLifetime: rootRegistrar.with { $0.add(self, for: Access(registrar: $0, slot: .lifetime)) }
                }
            }
            if leafWord != leafKey { setLeafWord(leafKey) }
            underLock(true)
        }
        lock.unlock()
        for registrar in held { registrar.release() }
    }

    /// The leaf (see ``SlotObserver/leaf``) of an evaluation that read `accesses`: its last read, when the
    /// key path is a chain of `@Observed` properties whose every link was there.
    ///
    /// Whether it is a chain depends on which properties it read and on the key path's own components,
    /// never on values (a computed property that transforms a chain's leaf may compute the leaf's value
    /// by chance: an empty string uppercased), so it is worked out once per key path and properties read
    /// (``ChainShapeCache``): see ``readsChain(_:)``.
    ///
    /// A shape whose types show it is no chain is remembered in ``SlotObserver/leaf`` itself
    /// (``LeafWord/noChain(shape:)``): a computed property's next evaluation, reading the same, then answers at
    /// once (the shared cache's lock and lookup cost about 300 instructions).
    final func leafKey(of accesses: [Access]) -> LeafWord {
        guard let last = accesses.indices.last, case .field(let field) = accesses[last].slot else { return .none }
        guard stringKeyPath == nil else {
            return readsChain(accesses) ? .slot(accesses[last].registrar, field: field) : .none
        }
        let shape = ChainShapeCache.shape(of: accesses)
        let noChain = LeafWord.noChain(shape: shape)
        if leafWord == noChain { return noChain }
        if isChain(reading: accesses, shape: shape) {
            return .slot(accesses[last].registrar, field: field)
        }
        // (Reads of a chain that the cache holds to be none, seen ending at another property: asked again.)
        return readsChain(accesses) ? .none : noChain
    }

    /// Whether the last evaluation found no chain (``SlotObserver/leaf`` holds a ``LeafWord/noChain(shape:)``).
    final var foundNoChain: Bool {
        leafWord.isNoChain
    }

    /// Whether the key path is a chain when it reads `accesses` (per key path object, in
    /// ``ChainShapeCache``, for typed key paths).
    private func isChain(reading accesses: [Access], shape: UInt) -> Bool {
        let leafProperty = accesses[accesses.count - 1].wrapped.map(ObjectIdentifier.init)
        let cache = ChainShapeCache.shared
        if let known = cache.isChain(keyPath, shape: shape, leafProperty: leafProperty) { return known }
        // (Recording may find the key path ending at two properties: then it is not a chain. Its answer
        // is the one to use, not a second look at the cache, which another thread's evaluation of another
        // shape may have replaced meanwhile.)
        let isChain = readsChain(accesses)
        return cache.record(isChain, of: keyPath, shape: shape, leafProperty: leafProperty)
    }

    /// Whether `accesses` are the links of this registration's key path, in order, each an `@Observed`
    /// property, the last one's value being the key path's value: for a typed key path, its components
    /// are those properties' own (``KeyPathComponents``), each read on an object of its own class.
    func readsChain(_ accesses: [Access]) -> Bool {
        guard accesses.allSatisfy({ if case .field = $0.slot { true } else { false } }) else { return false }
        if let stringKeyPath {
            // A string key path reads exactly the properties it names, each once by its storage: all of them
            // when whole. (A component read through the key path its class names for it reports that key
            // path's own read, no `@Observed` field, so such a path is no chain: `StringComponent`.)
            return stringKeyPath.utf8.count(where: { $0 == UInt8(ascii: ".") }) + 1 == accesses.count
        }
        guard readerKind != .flattening, accesses.allSatisfy({ $0.wrapped != nil }) else { return false }
        // One link: the key path is that very property (the same property through a subclass's key
        // path, or a computed property reading it, is not known to be it).
        if accesses.count == 1 { return sameKeyPath(accesses[0].wrapped, keyPath) }
        // Each link read on an object of the very class its property's key path starts at: on a subclass,
        // the chain's property may be an override computed from other storage, which reads the same
        // property types (its value then not the storage's), so such a chain is evaluated on each change.
        guard accesses.allSatisfy({ readsOwnClass($0) }) else { return false }
        return chainName(of: keyPath, reads: accesses.map { (name: "_", wrapped: $0.wrapped) }) != nil
    }

    /// Whether `access`, a typed read of an `@Observed` property, was of an object of the class its key
    /// path starts at (not of a subclass).
    private func readsOwnClass(_ access: Access) -> Bool {
        guard let objectType = access.objectType, let wrapped = access.wrapped else { return false }
        return ObjectIdentifier(objectType) == ObjectIdentifier(type(of: wrapped).rootType)
    }

    func unsubscribeAll(except dyingRegistrar: ObjectIdentifier?) {
        if madeRecord.load(ordering: .relaxed) { learnNameBeforeEnding() }
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        // Under the lock: a registrar deinitialising meanwhile waits for it before its memory goes.
        // Which registrars were retained is a bit per dependency (past 64, a list): no allocation.
        let taken = state.close()
        var retained: UInt64 = 0
        var retainedPast64 = InlineList<Unretained<KVORegistrar>>()
        for position in taken.indices where taken[position].registrarID != dyingRegistrar {
            let dependency = taken[position]
            guard let registrar = dependency.retainedRegistrar() else { continue }
            registrar.with { $0.remove(self, for: dependency.slot) }
            if position < 64 { retained |= 1 << UInt64(position) } else { retainedPast64.append(registrar) }
        }
        lock.unlock()
        while retained != 0 {
            taken[retained.trailingZeroBitCount].registrar.release()
            retained &= retained &- 1
        }
        retainedPast64.forEachElement { $0.release() }
    }

    /// The slots this registration depends on, in the order they were read, each with its property
    /// name and the typed key path that read it.
    ///
    /// A slot the library cannot name (custom storage the type does not name) has an empty name.
    final func dependencySlots() -> [(name: String, wrapped: AnyKeyPath?)] {
        // Collected under the lock, described after it: naming custom storage asks the type.
        let read: [(registrar: Unretained<KVORegistrar>, slot: SlotKey)] = StripedLocks.lock(for: self).withLock {
            state.dependencies.compactMap { dependency in
                if dependency.slot == .lifetime { return nil }
                return dependency.retainedRegistrar().map { ($0, dependency.slot) }
            }
        }
        defer { for (registrar, _) in read { registrar.release() } }
        return read.map { registrar, slot in
            let described = registrar.with { $0.describe(slot) }
            return (described.name ?? "", described.wrapped)
        }
    }
}
