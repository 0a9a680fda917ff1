import Foundation

/// The bookkeeping of an observation of a property of every element of a collection
/// (`observe(each:keyPath:…)`): the collection's members by identity, in order, each distinct member's
/// registration (made as it joins, ended as it leaves, counted when held twice) and their indexes.
///
/// It names no type of the user's: the registrations and the records are made by closures built where the
/// collection's, the elements' and the values' types are known (the observe call, in the caller's module),
/// so that a change of an element runs no generic code. Every record goes through the collection
/// registration's gate (`deliver`), so that once the observation ends no callback starts.
@usableFromInline
final class ElementMembers: EndsWithToken, @unchecked Sendable {  // the fields: guarded by `lock`
    private let lock = Lock()
    private let ordered: Bool
    /// Makes an element's registration, whose changes find their place through their `ElementMember` (set
    /// once, before the collection is observed).
    @usableFromInline
    var subscribeElement: ((AnyObject, ElementMember) throws(KVOError) -> KVOObservation)?
    /// What the lock guards (in a `GuardedFields`: no runtime exclusivity check on each access).
    private struct Fields {
        var members: [ObjectIdentifier] = []
        /// Each distinct member, by identity.
        var entries: [ObjectIdentifier: ElementMember] = [:]
        /// Whether the entries' indexes follow `members`: they are rebuilt when an element's change needs
        /// them after a membership change.
        var indexesCurrent = false
        var collection: KVOObservation?
        var ended = false
        /// Whether the members were read (`start`); changes of the collection before that are counted,
        /// so that a start that read the collection before one of them reads it again.
        var started = false
        var changesBeforeStart = 0
    }

    private let fields = GuardedFields(guarded: Fields())
    private var members: [ObjectIdentifier] {
        _read { yield fields.guarded.members }
        _modify { yield &fields.guarded.members }
    }
    private var entries: [ObjectIdentifier: ElementMember] {
        _read { yield fields.guarded.entries }
        _modify { yield &fields.guarded.entries }
    }
    private var indexesCurrent: Bool {
        _read { yield fields.guarded.indexesCurrent }
        _modify { yield &fields.guarded.indexesCurrent }
    }
    private var collection: KVOObservation? {
        _read { yield fields.guarded.collection }
        _modify { yield &fields.guarded.collection }
    }
    private var ended: Bool {
        _read { yield fields.guarded.ended }
        _modify { yield &fields.guarded.ended }
    }
    private var started: Bool {
        _read { yield fields.guarded.started }
        _modify { yield &fields.guarded.started }
    }
    private var changesBeforeStart: Int {
        _read { yield fields.guarded.changesBeforeStart }
        _modify { yield &fields.guarded.changesBeforeStart }
    }

    /// Members of an array (`ordered`: with indexes), or of a set.
    @usableFromInline
    init(ordered: Bool) {
        self.ordered = ordered
    }

    deinit {
        end()
    }

    /// An element that joined, and the member it joined as: to be registered with no lock held.
    private typealias Joined = (element: AnyObject, member: ElementMember)

    /// Where an element is, for the record of its change: its indexes now (none for a set) and how many.
    @usableFromInline
    struct Place {
        @usableFromInline let indexes: _KVOIndexes
        @usableFromInline let count: Int
    }

    /// Starts with the collection's registration (live already) and its members now, as `read` gives them,
    /// subscribing them; returns them. Read again if the collection changed meanwhile (on another thread).
    @usableFromInline
    func start(collection token: KVOObservation, read: () -> [AnyObject]) throws(KVOError) -> [AnyObject] {
        while true {
            let before = lock.withLock {
                collection = token
                return changesBeforeStart
            }
            let current = read()
            let joined: [Joined]? = lock.withLock {
                guard changesBeforeStart == before else { return nil }
                started = true
                return join(current, at: nil)
            }
            guard let joined else { continue }
            for (element, member) in joined { try subscribe(element, as: member) }
            return current
        }
    }

    /// Ends the collection's registration, then every element's. Idempotent.
    @usableFromInline
    func end() {
        let (collection, elements) = lock.withLock {
            defer {
                self.collection = nil
                entries = [:]
                ended = true
            }
            return (self.collection, entries.values.compactMap { $0.leave() })
        }
        collection?.invalidate()
        for token in elements { token.invalidate() }
    }

    /// The name of the key path observed on each element, from a member's registration (as its records name
    /// it): nil while no element is registered.
    var elementKeyPathName: String? {
        let info = lock.withLock { entries.values.lazy.compactMap { $0.guarded.token?.info }.first }
        return info?.keyPathName  // (Named with the lock no longer held: naming may lock the registration.)
    }

    /// Runs `body`, the callback of a change of `member`, with where the member is now, the collection's
    /// registration and the observed collection object, in that registration's gate: not once the member
    /// has left (a registration of an element that left and came back is not its current one), the
    /// observation ended or the object is gone.
    ///
    /// The gate is entered under the lock, where the collection's token holds the registration, so that
    /// the registration is then used with no retain: inside its gate it stays allocated (see `KVOInfo`).
    @usableFromInline
    func deliverChange(of member: ElementMember, _ body: (Place, KVOInfo, AnyObject) -> Void) {
        let found: (place: Place, info: Unretained<KVOInfo>)? = lock.withLock {
            guard !member.guarded.left, let info = collection?.enteredRegistration() else { return nil }
            guard ordered else { return (Place(indexes: .none, count: 1), info) }
            if !indexesCurrent { rebuildIndexes() }
            let count = member.guarded.count
            let indexes: _KVOIndexes =
                count == 1 ? .single(member.guarded.firstIndex) : .set(member.guarded.indexes)
            return (Place(indexes: indexes, count: count), info)
        }
        guard let found else { return }
        found.info.with { info in info.deliverWithObjectEntered { body(found.place, info, $0) } }
    }

    /// Runs `body`, a callback, in the collection registration's gate, if the observation lives.
    @usableFromInline
    func deliver(_ body: () -> Void) {
        lock.withLock { collection?.info }?.deliver(body)
    }

    /// Gives each entry its indexes in `members`. Under the lock.
    private func rebuildIndexes() {
        for member in entries.values {
            member.guarded.indexes = IndexSet()
            member.guarded.firstIndex = -1
        }
        for (index, member) in members.enumerated() {
            guard let entry = entries[member] else { continue }
            entry.guarded.indexes.insert(index)
            if entry.guarded.firstIndex < 0 { entry.guarded.firstIndex = index }
        }
        indexesCurrent = true
    }

    /// A change of the collection (not a prior record): the members and their registrations brought up to
    /// date. False once the observation ended (nothing is to be delivered).
    @usableFromInline
    func collectionChanged(
        _ kind: KVOChangeKind,
        removed: [AnyObject],
        inserted: [AnyObject],
        indexes: IndexSet?
    ) -> Bool {
        let changed: (joined: [Joined], left: [KVOObservation])? = lock.withLock {
            guard !ended else { return nil }
            guard started else {
                changesBeforeStart += 1
                return ([], [])
            }
            let indexes = ordered ? indexes : nil
            switch kind {
            case .setting:
                return replaceMembers(with: inserted)
            case .insertion:
                return (join(inserted, at: indexes), [])
            case .removal:
                return ([], leave(removed, at: indexes))
            case .replacement:
                let left = leave(removed, at: indexes)
                return (join(inserted, at: indexes), left)
            }
        }
        guard let changed else { return false }
        // (Ended outside the lock: an element's callback running on another thread takes it.)
        for token in changed.left { token.invalidate() }
        // (An element whose key path reads nothing observable is not observed; the others are.)
        for (element, member) in changed.joined { try? subscribe(element, as: member) }
        return true
    }

    /// The members after a set of the whole collection: only those that leave are unsubscribed, and only
    /// those that join are subscribed (a member that stays keeps its registration). Under the lock.
    private func replaceMembers(with elements: [AnyObject]) -> (joined: [Joined], left: [KVOObservation]) {
        var newEntries: [ObjectIdentifier: ElementMember] = [:]
        var joined: [Joined] = []
        for element in elements {
            let id = ObjectIdentifier(element)
            if newEntries[id] == nil {
                // (A member that stays keeps its registration; one that joins needs one.)
                let member = entries.removeValue(forKey: id) ?? ElementMember()
                if member.guarded.count == 0 { joined.append((element, member)) }
                newEntries[id] = member
                newEntries[id]!.guarded.count = 0
            }
            newEntries[id]!.guarded.count += 1
        }
        let left = entries.values.compactMap { $0.leave() }
        entries = newEntries
        members = elements.map(ObjectIdentifier.init)
        indexesCurrent = false
        return (joined, left)
    }

    // MARK: Members (under the lock)

    /// Adds `elements` to the members (at `indexes`, or at the end); returns those that need a
    /// registration (the first time the collection holds each), with the members they joined as.
    private func join(_ elements: [AnyObject], at indexes: IndexSet?) -> [Joined] {
        if let indexes, indexes.count == elements.count {
            for (element, index) in zip(elements, indexes) {
                members.insert(ObjectIdentifier(element), at: min(index, members.count))
            }
        } else {
            members += elements.map(ObjectIdentifier.init)
        }
        indexesCurrent = false
        var new: [Joined] = []
        for element in elements {
            let id = ObjectIdentifier(element)
            let member = entries[id] ?? ElementMember()
            if member.guarded.count == 0 {
                entries[id] = member
                new.append((element, member))
            }
            member.guarded.count += 1
        }
        return new
    }

    /// Removes `elements` from the members (at `indexes`, or by identity); returns the registrations of
    /// those the collection no longer holds, to be ended.
    private func leave(_ elements: [AnyObject], at indexes: IndexSet?) -> [KVOObservation] {
        // (By index when the members there are the ones removed; else by identity.)
        if let indexes, indexes.count == elements.count, (indexes.last ?? -1) < members.count,
            zip(indexes, elements).allSatisfy({ members[$0] == ObjectIdentifier($1) })
        {
            for index in indexes.reversed() { members.remove(at: index) }
        } else {
            for element in elements {
                if let index = members.firstIndex(of: ObjectIdentifier(element)) { members.remove(at: index) }
            }
        }
        return leave(members: elements.map(ObjectIdentifier.init))
    }

    /// Counts each of `ids` out once; returns the registrations of those no longer held.
    private func leave(members ids: [ObjectIdentifier]) -> [KVOObservation] {
        indexesCurrent = false
        var left: [KVOObservation] = []
        for id in ids {
            guard let member = entries[id] else { continue }
            if member.guarded.count > 1 {
                member.guarded.count -= 1
            } else if let token = entries.removeValue(forKey: id)?.leave() {
                left.append(token)
            }
        }
        return left
    }

    /// Registers `element` as the member it joined as (not the one it may be by now: it may have left and
    /// joined again meanwhile, as another); a registration not needed any more when it is ready (the member
    /// left meanwhile, the observation ended, or another was made first) is ended at once.
    private func subscribe(_ element: AnyObject, as member: ElementMember) throws(KVOError) {
        guard let subscribeElement else { return }
        let token = try subscribeElement(element, member)
        let kept = lock.withLock {
            guard !ended, !member.guarded.left, member.guarded.token == nil else { return false }
            member.guarded.token = token
            return true
        }
        if !kept { token.invalidate() }
    }
}

/// Key paths, which are immutable once made, handed to closures that may run on any thread.
@usableFromInline
struct _ElementKeyPaths<Root, Elements, Element, Value>: @unchecked Sendable {  // immutable key paths
    @usableFromInline let collection: KeyPath<Root, Elements>
    @usableFromInline let keyPath: KeyPath<Element, Value>

    @inlinable
    init(_ collection: KeyPath<Root, Elements>, _ keyPath: KeyPath<Element, Value>) {
        self.collection = collection
        self.keyPath = keyPath
    }
}
