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
    /// Makes an element's registration (set once, before the collection is observed).
    @usableFromInline
    var subscribeElement: ((AnyObject) throws(KVOError) -> KVOObservation)?
    /// What the lock guards (in a `GuardedFields`: no runtime exclusivity check on each access).
    private struct Fields {
        var members: [ObjectIdentifier] = []
        /// Each member's indexes, rebuilt from `members` when an element's change needs them after a
        /// membership change (nil: to rebuild).
        var positions: [ObjectIdentifier: IndexSet]?
        /// How many times the collection holds each distinct member.
        var counts: [ObjectIdentifier: Int] = [:]
        /// Each distinct member's registration, once made (made with no lock held, after the member
        /// joined: one that is not needed any more when it is ready is ended at once).
        var tokens: [ObjectIdentifier: KVOObservation] = [:]
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
    private var positions: [ObjectIdentifier: IndexSet]? {
        _read { yield fields.guarded.positions }
        _modify { yield &fields.guarded.positions }
    }
    private var counts: [ObjectIdentifier: Int] {
        _read { yield fields.guarded.counts }
        _modify { yield &fields.guarded.counts }
    }
    private var tokens: [ObjectIdentifier: KVOObservation] {
        _read { yield fields.guarded.tokens }
        _modify { yield &fields.guarded.tokens }
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

    /// Where an element is, for the record of its change: its indexes now (nil for a set) and how many.
    @usableFromInline
    struct Place {
        @usableFromInline let indexes: IndexSet?
        @usableFromInline let count: Int
        @usableFromInline let info: KVOInfo
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
            let joined: [AnyObject]? = lock.withLock {
                guard changesBeforeStart == before else { return nil }
                started = true
                return join(current, at: nil)
            }
            guard let joined else { continue }
            for element in joined { try subscribe(element) }
            return current
        }
    }

    /// Ends the collection's registration, then every element's. Idempotent.
    @usableFromInline
    func end() {
        let (collection, elements) = lock.withLock {
            defer {
                self.collection = nil
                counts = [:]
                tokens = [:]
                ended = true
            }
            return (self.collection, Array(tokens.values))
        }
        collection?.invalidate()
        for token in elements { token.invalidate() }
    }

    /// Runs `body`, a callback, in the collection registration's gate: not once the observation ended.
    @usableFromInline
    func deliver(at place: Place, _ body: () -> Void) {
        place.info.deliver(body)
    }

    /// Runs `body`, a callback, in the collection registration's gate, if the observation lives.
    @usableFromInline
    func deliver(_ body: () -> Void) {
        lock.withLock { collection?.info }?.deliver(body)
    }

    /// The observed object, as the caller knows it to be (nil once it is gone).
    @usableFromInline
    func object<Object: AnyObject>(at place: Place, as _: Object.Type) -> Object? {
        place.info.loadObject().map { KnownClass.cast($0, to: Object.self) }
    }

    /// Where `element` is now, for the record of its change made by the registration `firing`; nil for an
    /// element that has left, or a registration of it that is not its current one (it left and came back).
    @usableFromInline
    func place(of element: AnyObject, firedBy firing: AnyObject) -> Place? {
        let id = ObjectIdentifier(element)
        return lock.withLock {
            guard !ended, let info = collection?.info, counts[id] != nil else { return nil }
            if let token = tokens[id], token.info !== firing { return nil }
            guard ordered else { return Place(indexes: nil, count: 1, info: info) }
            if positions == nil {
                var built: [ObjectIdentifier: IndexSet] = [:]
                for (index, member) in members.enumerated() { built[member, default: IndexSet()].insert(index) }
                positions = built
            }
            guard let indexes = positions?[id] else { return nil }
            return Place(indexes: indexes, count: indexes.count, info: info)
        }
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
        let changed: (joined: [AnyObject], left: [KVOObservation])? = lock.withLock {
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
        for element in changed.joined { try? subscribe(element) }
        return true
    }

    /// The members after a set of the whole collection: only those that leave are unsubscribed, and only
    /// those that join are subscribed (a member that stays keeps its registration). Under the lock.
    private func replaceMembers(with elements: [AnyObject]) -> (joined: [AnyObject], left: [KVOObservation]) {
        var newCounts: [ObjectIdentifier: Int] = [:]
        for element in elements { newCounts[ObjectIdentifier(element), default: 0] += 1 }
        var left: [KVOObservation] = []
        for id in counts.keys where newCounts[id] == nil {
            if let token = tokens.removeValue(forKey: id) { left.append(token) }
        }
        var joined: [AnyObject] = []
        var seen = Set<ObjectIdentifier>()
        for element in elements {
            let id = ObjectIdentifier(element)
            if counts[id] == nil, seen.insert(id).inserted { joined.append(element) }
        }
        counts = newCounts
        members = elements.map(ObjectIdentifier.init)
        positions = nil
        return (joined, left)
    }

    // MARK: Members (under the lock)

    /// Adds `elements` to the members (at `indexes`, or at the end); returns those that need a
    /// registration (the first time the collection holds each).
    private func join(_ elements: [AnyObject], at indexes: IndexSet?) -> [AnyObject] {
        if let indexes, indexes.count == elements.count {
            for (element, index) in zip(elements, indexes) {
                members.insert(ObjectIdentifier(element), at: min(index, members.count))
            }
        } else {
            members += elements.map(ObjectIdentifier.init)
        }
        positions = nil
        var new: [AnyObject] = []
        for element in elements {
            let id = ObjectIdentifier(element)
            counts[id, default: 0] += 1
            if counts[id] == 1 { new.append(element) }
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
        positions = nil
        var left: [KVOObservation] = []
        for id in ids {
            guard let count = counts[id] else { continue }
            if count > 1 {
                counts[id] = count - 1
            } else {
                counts[id] = nil
                if let token = tokens.removeValue(forKey: id) { left.append(token) }
            }
        }
        return left
    }

    /// Registers `element`; a registration not needed any more when it is ready (the element left
    /// meanwhile, the observation ended, or another was made first) is ended at once.
    private func subscribe(_ element: AnyObject) throws(KVOError) {
        guard let subscribeElement else { return }
        let token = try subscribeElement(element)
        let kept = lock.withLock {
            let id = ObjectIdentifier(element)
            guard !ended, counts[id] != nil, tokens[id] == nil else { return false }
            tokens[id] = token
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
