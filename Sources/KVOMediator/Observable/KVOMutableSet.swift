extension KeyValueObservable {
    /// A proxy that mutates the set at `keyPath` and announces each mutation, as Cocoa's
    /// `mutableSetValue(forKey:)`.
    ///
    /// ```swift
    /// let tags = photo.mutableSetValue(for: \.tags)
    /// tags.insert("beach")            // .insertion, newValue ["beach"]
    /// tags.subtract(["old", "blurry"]) // .removal, oldValue: the ones that were there
    /// ```
    ///
    /// Every registration whose value is the set (typed, string, through a chain, a token) gets
    /// `.insertion` with the elements actually added as `newValue`, `.removal` with the elements
    /// actually removed as `oldValue`, or, for ``KVOMutableSet/replaceAll(with:)``, `.replacement` with
    /// both; `indexes` is nil for sets. A mutation that changes nothing (inserting a member, subtracting
    /// elements that are not there) announces nothing. Values computed from the set, and value streams,
    /// get a `.setting`. Assigning the whole set is a `.setting`.
    ///
    /// For an `@Observed(automaticallyNotifies: false)` property the proxy announces nothing, as its
    /// setter does not: announce around it with `willChangeValue(for:)` / `didChangeValue(for:)`.
    ///
    /// The proxy of an `@Observed` property mutates the set in place, as `Set`'s own methods do. (For any
    /// other property, each mutation gets the set, changes it and sets it back, which copies it.)
    ///
    /// A key path through other objects (`\.shelf.playlist.tags`) is set back through: the object that
    /// holds the set announces a `.setting` of the whole set, once to each registration. For the kinds,
    /// make the proxy on that object.
    ///
    /// - Parameter keyPath: An `@Observed` set property.
    /// - Returns: The proxy; it holds the object strongly.
    /// - Complexity: Making the proxy evaluates `keyPath` once.
    public func mutableSetValue<Element: Hashable>(
        for keyPath: ReferenceWritableKeyPath<Self, Set<Element>>
    ) -> KVOMutableSet<Self, Element> {
        KVOMutableSet(object: self, keyPath: keyPath)
    }
}

/// Mutates an observed set and announces each mutation as an insertion, a removal or a replacement.
///
/// Get one from ``KeyValueObservable/mutableSetValue(for:)``.
public struct KVOMutableSet<Object: KeyValueObservable, Element: Hashable> {
    let object: Object
    let keyPath: ReferenceWritableKeyPath<Object, Set<Element>>
    /// Where the storage of the `@Observed` property that `keyPath` is lies in `object`, so that
    /// mutations change the set in place; nil for any other key path (see ``ObservedStorageField``).
    let storage: ObservedStorageField?

    init(object: Object, keyPath: ReferenceWritableKeyPath<Object, Set<Element>>) {
        self.object = object
        self.keyPath = keyPath
        storage = ObservedStorageField(of: keyPath, on: object)
    }

    /// The current elements.
    public var elements: Set<Element> { object[keyPath: keyPath] }

    /// Inserts an element: an `.insertion` of it, unless it is already there (then nothing is announced).
    public func insert(_ element: Element) {
        formUnion(CollectionOfOne(element))
    }

    /// Removes an element: a `.removal` of it, if it is there (otherwise nothing is announced).
    public func remove(_ element: Element) {
        subtract(CollectionOfOne(element))
    }

    /// Adds the elements of `other`: one `.insertion` of those that were not there yet (Cocoa's `unionSet:`).
    public func formUnion(_ other: some Sequence<Element>) {
        let added = Set(other).subtracting(elements)
        mutate(.insertion, removed: nil, inserted: added) { $0.formUnion(added) }
    }

    /// Removes the elements of `other`: one `.removal` of those that were there (Cocoa's `minusSet:`).
    public func subtract(_ other: some Sequence<Element>) {
        let removed = elements.intersection(other)
        mutate(.removal, removed: removed, inserted: nil) { $0.subtract(removed) }
    }

    /// Keeps only the elements also in `other`: one `.removal` of the others (Cocoa's `intersectSet:`).
    public func formIntersection(_ other: some Sequence<Element>) {
        let removed = elements.subtracting(other)
        mutate(.removal, removed: removed, inserted: nil) { $0.subtract(removed) }
    }

    /// Removes every element: one `.removal` of all of them (nothing is announced if already empty).
    public func removeAll() {
        subtract(elements)
    }

    /// Makes the set's elements those of `newElements`: one `.replacement` whose `oldValue` is the
    /// elements that go and whose `newValue` is those that arrive (Cocoa's `setSet:`).
    ///
    /// ```swift
    /// let tags = photo.mutableSetValue(for: \.tags)   // ["beach", "2024"]
    /// tags.replaceAll(with: ["beach", "sunset"])      // .replacement, old ["2024"], new ["sunset"]
    /// ```
    ///
    /// Either side may be empty (`replaceAll(with: [])` of a non-empty set is a `.replacement` with
    /// an empty `newValue`, as Cocoa's `setSet:` is); the same elements announce nothing. Assigning
    /// the property itself is a `.setting` with the whole old and new sets.
    ///
    /// - Parameter newElements: The elements the set holds afterwards.
    public func replaceAll(with newElements: some Sequence<Element>) {
        let (removed, added) = KVOSetMutation.set.changes(of: elements, using: Set(newElements))
        mutate(.replacement, removed: removed, inserted: added) { set in
            set.subtract(removed)
            set.formUnion(added)
        }
    }

    private func mutate(
        _ kind: KVOChangeKind,
        removed: Set<Element>?,
        inserted: Set<Element>?,
        apply: (inout Set<Element>) -> Void
    ) {
        // Nothing changes: nothing to write, nothing to announce.
        guard !(removed?.isEmpty ?? true) || !(inserted?.isEmpty ?? true) else { return }
        object.kvoRegistrar.mutateCollection(
            of: object,
            keyPath: keyPath,
            storage: storage,
            kind: kind,
            indexes: .none,
            removed: removed,
            inserted: inserted,
            apply: apply
        )
    }
}

@available(*, unavailable, message: "A KVOMutableSet mutates its object on the calling thread")
extension KVOMutableSet: Sendable {}
