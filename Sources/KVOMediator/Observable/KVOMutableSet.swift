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
    /// `.insertion` with the elements actually added as `newValue`, or `.removal` with the elements
    /// actually removed as `oldValue`; `indexes` is nil for sets. Values computed from the set, and
    /// value streams, get a `.setting`. Assigning the whole set is a `.setting`.
    ///
    /// For an `@Observed(automaticallyNotifies: false)` property the proxy announces nothing, as its
    /// setter does not: announce around it with `willChangeValue(for:)` / `didChangeValue(for:)`.
    ///
    /// - Parameter keyPath: An `@Observed` set property.
    /// - Returns: The proxy; it holds the object strongly.
    public func mutableSetValue<Element: Hashable>(
        for keyPath: ReferenceWritableKeyPath<Self, Set<Element>>
    ) -> KVOMutableSet<Self, Element> {
        KVOMutableSet(object: self, keyPath: keyPath)
    }
}

/// Mutates an observed set and announces each mutation as an insertion or a removal.
///
/// Get one from ``KeyValueObservable/mutableSetValue(for:)``.
public struct KVOMutableSet<Object: KeyValueObservable, Element: Hashable> {
    let object: Object
    let keyPath: ReferenceWritableKeyPath<Object, Set<Element>>

    /// The current elements.
    public var elements: Set<Element> { object[keyPath: keyPath] }

    /// Inserts an element: an `.insertion` (with an empty `newValue` if it was already there).
    public func insert(_ element: Element) {
        formUnion([element])
    }

    /// Removes an element: a `.removal` (with an empty `oldValue` if it was not there).
    public func remove(_ element: Element) {
        subtract([element])
    }

    /// Adds the elements of `other`: one `.insertion` of those that were not there yet.
    public func formUnion(_ other: some Sequence<Element>) {
        let added = Set(other).subtracting(elements)
        mutate(.insertion, removed: nil, inserted: added) { $0.formUnion(added) }
    }

    /// Removes the elements of `other`: one `.removal` of those that were there.
    public func subtract(_ other: some Sequence<Element>) {
        let removed = elements.intersection(other)
        mutate(.removal, removed: removed, inserted: nil) { $0.subtract(removed) }
    }

    /// Keeps only the elements also in `other`: one `.removal` of the others.
    public func formIntersection(_ other: some Sequence<Element>) {
        let removed = elements.subtracting(other)
        mutate(.removal, removed: removed, inserted: nil) { $0.subtract(removed) }
    }

    /// Removes every element: one `.removal` of all of them.
    public func removeAll() {
        subtract(elements)
    }

    private func mutate(
        _ kind: KVOChangeKind,
        removed: Set<Element>?,
        inserted: Set<Element>?,
        apply: (inout Set<Element>) -> Void
    ) {
        object.kvoRegistrar.mutateCollection(
            of: object,
            keyPath: keyPath,
            kind: kind,
            indexes: nil,
            removed: removed,
            inserted: inserted,
            apply: apply
        )
    }
}

@available(*, unavailable, message: "A KVOMutableSet mutates its object on the calling thread")
extension KVOMutableSet: Sendable {}
