import Foundation

/// An observation of a property of every element of a collection (`observe(_:each:keyPath:…)`): one
/// registration of the collection, and one of `keyPath` on each element, made as an element joins and
/// ended as it leaves. Its records are of the values of `keyPath`:
/// - a change of an element's property: `.setting`, at the element's current indexes (none for a set),
///   its old and new value (one per index);
/// - a membership change: its kind and indexes, the values of the elements removed and inserted;
/// - a whole collection set: `.setting` of every old and every new element's value.
///
/// Every record goes through the collection registration's gate, so that once the observation ends no
/// callback starts (as for any registration). Elements are known by identity; an element is subscribed
/// once however many times the collection holds it.
final class ElementObservation<
    Object: KeyValueObservable & SendableMetatype,
    Element: KeyValueObservable & SendableMetatype,
    Value
>: EndsWithToken,
    @unchecked Sendable
{
    // `members`, `positions`, `counts`, `tokens`, `collection`, `ended`: guarded by `lock`
    private let lock = Lock()
    private let keyPath: KeyPath<Element, Value>
    private let options: KVOOptions
    private let ordered: Bool
    private let deliver: (Object, KVOChange<[Value]>) -> Void
    /// The collection's elements by identity, in order (for an array; in no order for a set).
    private var members: [ObjectIdentifier] = []
    /// Each member's indexes, rebuilt from `members` when a change of an element needs them after a
    /// membership change (nil: to rebuild).
    private var positions: [ObjectIdentifier: IndexSet]?
    /// How many times the collection holds each distinct member.
    private var counts: [ObjectIdentifier: Int] = [:]
    /// Each distinct member's registration, once made (it is made with no lock held, after the member
    /// joined: one that left meanwhile, or a second one, is ended at once).
    private var tokens: [ObjectIdentifier: KVOObservation] = [:]
    private var collection: KVOObservation?
    private var ended = false
    private let site: (file: StaticString, line: UInt)

    init(
        keyPath: KeyPath<Element, Value>,
        options: KVOOptions,
        ordered: Bool,
        site: (file: StaticString, line: UInt),
        deliver: @escaping (Object, KVOChange<[Value]>) -> Void
    ) {
        self.keyPath = keyPath
        self.options = options
        self.ordered = ordered
        self.site = site
        self.deliver = deliver
    }

    deinit {
        end()
    }

    /// Observes `collectionKeyPath` of `object` (its elements as `elements` gives them), subscribes every
    /// element it holds now and sends the `.initial` record if asked for.
    func start<Elements>(
        on object: Object,
        _ collectionKeyPath: KeyPath<Object, Elements>,
        elements: @escaping @Sendable (Elements) -> [Element]
    ) throws(KVOError) {
        let collectionOptions = options.intersection(.prior).union([.old, .new])
        let token = try object.observe(
            collectionKeyPath,
            options: collectionOptions,
            file: site.file,
            line: site.line
        ) { [weak self] object, change in
            self?.collectionChanged(object, change, elements: elements)
        }
        let current = untracked { elements(object[keyPath: collectionKeyPath]) }
        let tokens = lock.withLock {
            collection = token
            return join(current, at: nil)
        }
        try subscribe(tokens)
        if options.contains(.initial) {
            let values = options.contains(.new) ? current.map(value) : nil
            token.info.deliver { deliver(object, KVOChange(newValue: values, keyPath: collectionKeyPath)) }
        }
    }

    /// Ends the collection's registration, then every element's. Idempotent.
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

    /// The registration of the collection (its gate is the observation's), while it lives.
    var collectionInfo: KVOInfo? {
        lock.withLock { collection?.info }
    }

    // MARK: Membership

    private func value(of element: Element) -> Value {
        untracked { element[keyPath: keyPath] }
    }

    /// A change of the collection: keeps the members and their registrations up to date, then delivers
    /// the record of the values.
    private func collectionChanged<Elements>(
        _ object: Object,
        _ change: KVOChange<Elements>,
        elements: (Elements) -> [Element]
    ) {
        let removed = change.oldValue.map(elements) ?? []
        let inserted = change.newValue.map(elements) ?? []
        if change.isPrior {
            let old = options.contains(.old) ? removed.map(value) : nil
            let record = KVOChange<[Value]>(
                kind: change.kind,
                oldValue: old,
                indexes: change.indexes,
                isPrior: true,
                keyPath: change.keyPath
            )
            return deliver(object, record)
        }
        let (joined, left): ([Element], [KVOObservation]) = lock.withLock {
            guard !ended else { return ([], []) }
            let indexes = ordered ? change.indexes : nil
            var left: [KVOObservation] = []
            switch change.kind {
            case .setting:
                left = leave(members: members)
                members = []
                return (join(inserted, at: nil), left)
            case .insertion:
                return (join(inserted, at: indexes), [])
            case .removal:
                left = leave(removed, at: indexes)
                return ([], left)
            case .replacement:
                left = leave(removed, at: indexes)
                return (join(inserted, at: indexes), left)
            }
        }
        // (Ended outside the lock: an element's callback running on another thread takes it.)
        for token in left { token.invalidate() }
        try? subscribe(joined)
        // (As the collection's record has them: an insertion has no old elements, a removal no new ones.)
        let record = KVOChange<[Value]>(
            kind: change.kind,
            oldValue: options.contains(.old) ? change.oldValue.map { elements($0).map(value) } : nil,
            newValue: options.contains(.new) ? change.newValue.map { elements($0).map(value) } : nil,
            indexes: ordered ? change.indexes : nil,
            keyPath: change.keyPath
        )
        deliver(object, record)
    }

    /// Adds `elements` to the members (at `indexes`, or at the end); returns those that need a
    /// registration (the first time the collection holds each). Under the lock.
    private func join(_ elements: [Element], at indexes: IndexSet?) -> [Element] {
        if let indexes, indexes.count == elements.count {
            for (element, index) in zip(elements, indexes) {
                members.insert(ObjectIdentifier(element), at: min(index, members.count))
            }
        } else {
            members += elements.map(ObjectIdentifier.init)
        }
        positions = nil
        var new: [Element] = []
        for element in elements {
            let id = ObjectIdentifier(element)
            counts[id, default: 0] += 1
            if counts[id] == 1 { new.append(element) }
        }
        return new
    }

    /// Removes `elements` from the members (at `indexes`, or by identity); returns the registrations of
    /// those the collection no longer holds, to be ended. Under the lock.
    private func leave(_ elements: [Element], at indexes: IndexSet?) -> [KVOObservation] {
        if let indexes, indexes.count == elements.count, (indexes.last ?? -1) < members.count {
            for index in indexes.reversed() { members.remove(at: index) }
        } else {
            for element in elements {
                if let index = members.firstIndex(of: ObjectIdentifier(element)) { members.remove(at: index) }
            }
        }
        return leave(members: elements.map(ObjectIdentifier.init))
    }

    /// Counts each of `ids` out once; returns the registrations of those no longer held. Under the lock.
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

    /// Registers `keyPath` on each of `elements`; a registration that is not needed any more (the element
    /// left meanwhile, the observation ended, or another was made first) is ended at once.
    private func subscribe(_ elements: [Element]) throws(KVOError) {
        let elementOptions = options.subtracting(.initial)
        for element in elements {
            let token = try element.observe(keyPath, options: elementOptions, file: site.file, line: site.line) {
                [weak self] element, change in
                self?.elementChanged(element, change)
            }
            let kept = lock.withLock {
                let id = ObjectIdentifier(element)
                guard !ended, counts[id] != nil, tokens[id] == nil else { return false }
                tokens[id] = token
                return true
            }
            if !kept { token.invalidate() }
        }
    }

    // MARK: Elements

    /// A change of an element's property: its record at the element's indexes now, through the
    /// collection's gate; nothing for an element that has left.
    private func elementChanged(_ element: Element, _ change: KVOChange<Value>) {
        let id = ObjectIdentifier(element)
        let found: (indexes: IndexSet?, count: Int, info: KVOInfo)? = lock.withLock {
            guard !ended, let info = collection?.info, counts[id] != nil else { return nil }
            guard ordered else { return (nil, 1, info) }
            if positions == nil {
                var built: [ObjectIdentifier: IndexSet] = [:]
                for (index, member) in members.enumerated() { built[member, default: IndexSet()].insert(index) }
                positions = built
            }
            guard let indexes = positions?[id] else { return nil }
            return (indexes, indexes.count, info)
        }
        guard let found, let object = found.info.loadObject() as? Object else { return }
        let record = KVOChange<[Value]>(
            kind: .setting,
            oldValue: change.oldValue.map { Array(repeating: $0, count: found.count) },
            newValue: change.newValue.map { Array(repeating: $0, count: found.count) },
            indexes: found.indexes,
            isPrior: change.isPrior,
            keyPath: found.info.keyPath
        )
        found.info.deliver { deliver(object, record) }
    }
}
