/// What a registration depends on and whether it is closed: one value, changed only by the transitions
/// below. Each transition is pure: it changes this value and returns what the registrars must be told
/// (subscriptions to drop, reads to subscribe), which the registration carries out under its striped
/// lock (`KVOInfo+Dependencies`). So the rules can be read, and tested, apart from the locking and the
/// registrars they drive (`RegistrationStateTests`).
///
/// Beside it, in the registration: the applied ticket (atomic, as a re-evaluation reads it as a hint
/// before taking the lock), which the transitions are given and which moves on when one is applied;
/// and the leaf word (atomic, read by every set), which the caller sets from the evaluation.
struct RegistrationState {
    /// The slots read, in the order the newest applied evaluation read them (a chain's links in order),
    /// and a lifetime dependency on the root object while nothing of it is read.
    private(set) var dependencies = InlineList<Dependency>()
    /// Set when the registration ends: nothing is subscribed again after.
    private(set) var isClosed = false

    /// Whether an evaluation numbered `ticket` is newer than the applied one (16 bits, compared with
    /// wrapping arithmetic: evaluations in flight at once are never near 32,768 apart).
    @inline(__always)
    static func isNewer(_ ticket: UInt16, than applied: UInt16) -> Bool {
        Int16(bitPattern: ticket &- applied) > 0
    }

    // MARK: Reads as they happen

    /// Lists a read made while evaluating, unless it is listed already or the registration is closed;
    /// true when it was, and the caller subscribes it at its registrar.
    @inline(__always)
    mutating func list(_ access: Access) -> Bool {
        guard !isClosed, !lists(ObjectIdentifier(access.registrar), access.slot) else { return false }
        dependencies.append(Dependency(registrar: Unretained(access.registrar), slot: access.slot))
        return true
    }

    /// Whether `slot` of the registrar at `registrar` is listed.
    @inline(__always)
    private func lists(_ registrar: ObjectIdentifier, _ slot: SlotKey) -> Bool {
        for index in dependencies.indices
        where dependencies[index].registrarID == registrar && sameSlot(dependencies[index].slot, slot) {
            return true
        }
        return false
    }

    // MARK: An evaluation's reads

    /// What applying an evaluation did.
    enum Application {
        /// Nothing: the registration is closed, or a newer evaluation was applied first.
        case stale
        /// It read exactly what is listed, and the root object: only the ticket moves on.
        case same
        /// The list is now what it read: the caller drops the subscriptions of `drop` and subscribes `add`.
        case changed(drop: InlineList<Dependency>, add: InlineList<Subscription>)
    }

    /// A subscription to make for an applied evaluation.
    enum Subscription {
        /// The read at this index of the evaluation's reads.
        case read(Int)
        /// The root object's lifetime: the evaluation read nothing of it, and it must still end with it.
        case rootLifetime
    }

    /// Brings the list to what an evaluation numbered `ticket` read (`accesses`, each once), unless the
    /// registration is closed or a newer evaluation than `applied` was applied: drops what it no longer
    /// read, lists again what it read that an older evaluation dropped meanwhile (evaluations on two
    /// threads may be applied out of order), orders the list like the reads, and keeps a lifetime
    /// dependency on the root object (whose registrar is `root`) exactly while nothing of it is read.
    /// (Inlined into its one caller, which then switches over no made value.)
    @inline(__always)
    mutating func apply(
        reads accesses: [Access],
        ticket: UInt16,
        applied: UInt16,
        root: Unretained<KVORegistrar>
    ) -> Application {
        guard !isClosed, Self.isNewer(ticket, than: applied) else { return .stale }
        let rootID = root.id
        if readTheSame(as: accesses, root: rootID) { return .same }
        let readsRoot = accesses.contains(registrar: rootID)
        var drop = InlineList<Dependency>()
        dependencies.removeAll { dependency in
            let kept =
                if case .lifetime = dependency.slot {
                    !readsRoot
                } else {
                    accesses.contains(registrar: dependency.registrarID, slot: dependency.slot)
                }
            if !kept { drop.append(dependency) }
            return !kept
        }
        var add = InlineList<Subscription>()
        // (Checked in place first: passing a read copies it, retaining its references.)
        for index in accesses.indices
        where !lists(ObjectIdentifier(accesses[index].registrar), accesses[index].slot) {
            dependencies.append(
                Dependency(registrar: Unretained(accesses[index].registrar), slot: accesses[index].slot)
            )
            add.append(.read(index))
        }
        orderLikeReads(accesses)
        if !readsRoot, !dependencies.contains(where: { $0.registrarID == rootID }) {
            dependencies.append(Dependency(registrar: root, slot: .lifetime))
            add.append(.rootLifetime)
        }
        return .changed(drop: drop, add: add)
    }

    /// Whether the list is exactly `accesses`, in order, and these read the root object (so no
    /// lifetime dependency is wanted): nothing to drop or add.
    private func readTheSame(as accesses: [Access], root: ObjectIdentifier) -> Bool {
        dependencies.count == accesses.count && accesses.contains(registrar: root) && startsWith(accesses)
    }

    /// Whether the list starts with `accesses`, in order (compared in place, with no copy of a read: a
    /// copy retains its references).
    @inline(__always)
    private func startsWith(_ accesses: [Access]) -> Bool {
        guard dependencies.count >= accesses.count else { return false }
        for index in accesses.indices {
            let dependency = dependencies[index]
            guard dependency.registrarID == ObjectIdentifier(accesses[index].registrar),
                sameSlot(dependency.slot, accesses[index].slot)
            else { return false }
        }
        return true
    }

    /// Puts the list in the order of `accesses`, the rest after: a link put back in a chain keeps its old
    /// place in the list otherwise, and a chain is named, and told from a computed property, by its
    /// links in order.
    private mutating func orderLikeReads(_ accesses: [Access]) {
        // Usually in order already (new reads are appended as they happen): nothing to allocate.
        if dependencies.count == accesses.count, startsWith(accesses) { return }
        var ordered = InlineList<Dependency>()
        for access in accesses {
            let id = ObjectIdentifier(access.registrar)
            if let dependency = dependencies.first(where: { $0.registrarID == id && $0.slot == access.slot }) {
                ordered.append(dependency)
            }
        }
        guard ordered.count != dependencies.count || !zip(ordered, dependencies).allSatisfy(Self.same) else {
            return
        }
        for dependency in dependencies where !ordered.contains(where: { Self.same($0, dependency) }) {
            ordered.append(dependency)
        }
        dependencies = ordered
    }

    private static func same(_ lhs: Dependency, _ rhs: Dependency) -> Bool {
        lhs.registrarID == rhs.registrarID && lhs.slot == rhs.slot
    }

    /// Whether the list is exactly `count` `@Observed` slots, the one at each index `expected(index)`, in
    /// order: an evaluation that read those read the same as the one applied, when none was applied since.
    @inline(__always)
    func isExactly(count: Int, _ expected: (Int) -> (registrar: ObjectIdentifier, field: Int)) -> Bool {
        guard !isClosed, dependencies.count == count else { return false }
        for index in dependencies.indices where !isField(index, expected(index)) { return false }
        return true
    }

    /// Whether the dependency at `index` is the `@Observed` slot `read`.
    @inline(__always)
    func isField(_ index: Int, _ read: (registrar: ObjectIdentifier, field: Int)) -> Bool {
        guard dependencies[index].registrarID == read.registrar, case .field(let field) = dependencies[index].slot
        else { return false }
        return field == read.field
    }

    // MARK: A chain's tail

    /// Lists `dependency` at `index` in place of the one there: a link of a chain's new tail in place of
    /// the old one's link (whose subscription the caller has ended, unless both are of one object). In
    /// place, so that a replaced tail allocates nothing: taking it off and listing it again freed the
    /// list's storage and made it anew, on every set of a link.
    @inline(__always)
    mutating func relist(_ dependency: Dependency, at index: Int) {
        dependencies[index] = dependency
    }

    // MARK: The end

    /// Closes the registration and empties the list; returns what was listed, for the caller to
    /// unsubscribe.
    mutating func close() -> InlineList<Dependency> {
        isClosed = true
        defer { dependencies = InlineList() }
        return dependencies
    }

    /// Forgets the dependencies on the registrar at `registrar`, whose deinit ended them.
    mutating func forget(registrar: ObjectIdentifier) {
        dependencies.removeAll { $0.registrarID == registrar }
    }
}
