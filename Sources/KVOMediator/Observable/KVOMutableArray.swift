import Foundation

extension KeyValueObservable {
    /// A proxy that mutates the array at `keyPath` and announces each mutation with its kind and indexes,
    /// as Cocoa's `mutableArrayValue(forKey:)`.
    ///
    /// ```swift
    /// let downloads = manager.mutableArrayValue(for: \.downloads)
    /// downloads.append(file)            // .insertion at [count]
    /// downloads.remove(at: 0)           // .removal at [0]
    /// downloads[1] = other              // .replacement at [1]
    /// ```
    ///
    /// Every registration whose value is the array gets `kind` `.insertion`, `.removal` or
    /// `.replacement`, `indexes`, and the inserted (`newValue`) and removed or replaced (`oldValue`)
    /// elements, in index order, whichever form it was made in: the typed key path (`\.downloads`), a
    /// string key path (`"downloads"`), a chain ending at it (`\.manager?.downloads`), a token.
    /// Observers of values computed from the array (its `count`, a computed property) get a
    /// `.setting`, as do value streams (``KeyValueObservable/values(for:buffering:file:line:)``), which carry whole
    /// values. Assigning the whole array is a `.setting` too.
    ///
    /// For an `@Observed(automaticallyNotifies: false)` property the proxy announces nothing, as its
    /// setter does not: announce around it with `willChangeValue(for:)` / `didChangeValue(for:)`.
    ///
    /// The proxy of an `@Observed` property mutates the array in place, as `Array`'s own methods do: an
    /// append costs the same whatever the array's size. (For any other property, each mutation gets the
    /// array, changes it and sets it back, which copies it.) Keep a proxy to mutate through it many times.
    ///
    /// A key path through other objects (`owner.mutableArrayValue(for: \.shelf.playlist.songs)`) is set
    /// back through: the object that holds the array announces a `.setting` of the whole array, once to
    /// each registration. For the kinds and indexes, make the proxy on that object:
    /// `owner.shelf.playlist.mutableArrayValue(for: \.songs)`.
    ///
    /// For a property that a superclass declares, make the proxy with the declaring class's key path
    /// (`(downloads as Base).mutableArrayValue(for: \.items)`) to mutate in place and give every observer
    /// the kinds: through a subclass's key path, which may name an override computed from the storage, each
    /// mutation goes through the key path (get, change, set back), registrations made with that same key
    /// path get the kinds, and those made with the declaring class's get a `.setting`.
    ///
    /// - Parameter keyPath: An `@Observed` array property (or a property whose getter reports it).
    /// - Returns: The proxy; it holds the object strongly.
    /// - Complexity: Making the proxy evaluates `keyPath` once.
    public func mutableArrayValue<Element>(
        for keyPath: ReferenceWritableKeyPath<Self, [Element]>
    ) -> KVOMutableArray<Self, Element> {
        KVOMutableArray(object: self, keyPath: keyPath)
    }
}

/// Mutates an observed array and announces each mutation with Cocoa's kinds and indexes.
///
/// Get one from ``KeyValueObservable/mutableArrayValue(for:)``. Indexes out of range are a
/// programming error and trap, as they do on `Array`.
public struct KVOMutableArray<Object: KeyValueObservable, Element> {
    @usableFromInline
    let object: Object
    @usableFromInline
    let keyPath: ReferenceWritableKeyPath<Object, [Element]>
    /// Where the storage of the `@Observed` property that `keyPath` is lies in `object`, so that
    /// mutations change the array in place; nil for any other key path (see ``ObservedStorageField``).
    @usableFromInline
    let storage: ObservedStorageField?

    init(object: Object, keyPath: ReferenceWritableKeyPath<Object, [Element]>) {
        self.object = object
        self.keyPath = keyPath
        storage = ObservedStorageField(of: keyPath, on: object)
    }

    /// The current elements.
    @inlinable
    public var elements: [Element] { object[keyPath: keyPath] }

    /// The number of elements.
    @inlinable
    public var count: Int { elements.count }

    /// The element at `index`; setting it is a `.replacement` at `[index]`.
    @inlinable
    public subscript(index: Int) -> Element {
        get { elements[index] }
        nonmutating set { replace(at: index, with: newValue) }
    }

    /// Appends an element: an `.insertion` at `[count]`.
    @inlinable
    public func append(_ element: Element) {
        if _mutateUnannounced({ $0.append(element) }) { return }
        _announceAppend(of: element)
    }

    /// Appends elements: one `.insertion` at `[count..<count + n]`.
    @inlinable
    public func append(contentsOf newElements: some Sequence<Element>) {
        let newElements = Array(newElements)
        let count = _withCurrent { $0.count }
        insert(newElements, at: IndexSet(integersIn: count..<count + newElements.count))
    }

    /// Inserts an element at `index`: an `.insertion` at `[index]`.
    @inlinable
    public func insert(_ element: Element, at index: Int) {
        precondition(
            index >= 0 && index <= _withCurrent { $0.count },
            "KVOMutableArray.insert: index \(index) is out of range"
        )
        if _mutateUnannounced({ $0.insert(element, at: index) }) { return }
        _announceInsertion(of: element, at: index)
    }

    /// Inserts elements at `index`: one `.insertion` at `[index..<index + n]`.
    @inlinable
    public func insert(contentsOf newElements: [Element], at index: Int) {
        precondition(
            index >= 0 && index <= _withCurrent { $0.count },
            "KVOMutableArray.insert: index \(index) is out of range"
        )
        insert(newElements, at: IndexSet(integersIn: index..<index + newElements.count))
    }

    /// Inserts `newElements` so that they end up at `indexes` (Cocoa's `insertObjects:atIndexes:`).
    ///
    /// - Precondition: `newElements.count == indexes.count`, and each index is at most the count so far.
    @inlinable
    public func insert(_ newElements: [Element], at indexes: IndexSet) {
        precondition(
            newElements.count == indexes.count,
            "KVOMutableArray.insert: \(newElements.count) elements for \(indexes.count) indexes"
        )
        guard !indexes.isEmpty else { return }
        precondition(
            indexes.first! >= 0 && indexes.last! < _withCurrent { $0.count } + newElements.count,
            "KVOMutableArray.insert: index \(indexes.first! < 0 ? indexes.first! : indexes.last!) is out of range"
        )
        mutate(.insertion, at: .set(indexes), removed: nil, inserted: newElements) { array in
            for (element, index) in zip(newElements, indexes) {
                array.insert(element, at: index)
            }
        }
    }

    /// Removes and returns the element at `index`: a `.removal` at `[index]`.
    @inlinable
    @discardableResult
    public func remove(at index: Int) -> Element {
        // Kept until the mutation has ended, so that no element's deinit runs inside it.
        let removed = _withCurrent { current in
            precondition(index >= 0 && index < current.count, "KVOMutableArray.remove: index \(index) is out of range")
            return current[index]
        }
        if !_mutateUnannounced({ _ = $0.remove(at: index) }) { _announceRemoval(of: removed, at: index) }
        return removed
    }

    /// Removes the elements at `indexes`: one `.removal` at those indexes.
    @inlinable
    public func remove(at indexes: IndexSet) {
        guard !indexes.isEmpty else { return }
        // Kept until the mutation has ended, so that no element's deinit runs inside it.
        let removed = _withCurrent { current in
            precondition(
                indexes.first! >= 0 && indexes.last! < current.count,
                "KVOMutableArray.remove: index \(indexes.first! < 0 ? indexes.first! : indexes.last!) is out of range"
            )
            return indexes.map { current[$0] }
        }
        mutate(.removal, at: .set(indexes), removed: removed, inserted: nil) { array in
            for index in indexes.reversed() {
                array.remove(at: index)
            }
        }
    }

    /// Removes the first element: a `.removal` at `[0]`.
    @inlinable
    @discardableResult
    public func removeFirst() -> Element {
        remove(at: 0)
    }

    /// Removes the last element: a `.removal` at `[count - 1]`.
    @inlinable
    @discardableResult
    public func removeLast() -> Element {
        remove(at: _withCurrent { $0.count } - 1)
    }

    /// Removes every element: one `.removal` at `[0..<count]` (nothing is announced if already empty).
    @inlinable
    public func removeAll() {
        remove(at: IndexSet(integersIn: 0..<_withCurrent { $0.count }))
    }

    /// Replaces the element at `index`: a `.replacement` at `[index]`.
    @inlinable
    public func replace(at index: Int, with element: Element) {
        // Kept until the mutation has ended, so that no element's deinit runs inside it.
        let replaced = _withCurrent { current in
            precondition(index >= 0 && index < current.count, "KVOMutableArray.replace: index \(index) is out of range")
            return current[index]
        }
        if _mutateUnannounced({ $0[index] = element }) { return }
        _announceReplacement(of: replaced, with: element, at: index)
    }

    /// Replaces the elements at `indexes` with `newElements`, in index order: one `.replacement`.
    ///
    /// - Precondition: `newElements.count == indexes.count`, and every index is in range.
    @inlinable
    public func replace(at indexes: IndexSet, with newElements: [Element]) {
        precondition(
            newElements.count == indexes.count,
            "KVOMutableArray.replace: \(newElements.count) elements for \(indexes.count) indexes"
        )
        guard !indexes.isEmpty else { return }
        // Kept until the mutation has ended, so that no element's deinit runs inside it.
        let replaced = _withCurrent { current in
            precondition(
                indexes.first! >= 0 && indexes.last! < current.count,
                "KVOMutableArray.replace: index \(indexes.first! < 0 ? indexes.first! : indexes.last!) is out of range"
            )
            return indexes.map { current[$0] }
        }
        mutate(.replacement, at: .set(indexes), removed: replaced, inserted: newElements) { array in
            for (element, index) in zip(newElements, indexes) {
                array[index] = element
            }
        }
    }

    /// Calls `body` with the elements, for the proxy's own use: read in place when the property is
    /// `@Observed` (then no reference to the array's storage outlives the call), else through the key
    /// path; either way a read that no observation being set up on this thread takes as its own.
    @inlinable
    func _withCurrent<Result>(_ body: ([Element]) -> Result) -> Result {
        if let storage { return storage.withValue(of: object, as: [Element].self, body) }
        return body(untracked { object[keyPath: keyPath] })
    }

    /// Applies `body` to the array in place when nobody is told of it: the property is `@Observed`,
    /// the object has no observer and its class does not bridge to Observation. True if it did.
    @inlinable
    @inline(__always)
    func _mutateUnannounced(_ body: (inout [Element]) -> Void) -> Bool {
        guard let storage, !Object._reportsToObservation, !object.kvoRegistrar._hasObservers else { return false }
        storage.mutate(of: object, as: [Element].self, body)
        return true
    }

    @inlinable
    func mutate(
        _ kind: KVOChangeKind,
        at indexes: _KVOIndexes,
        removed: [Element]?,
        inserted: [Element]?,
        apply: (inout [Element]) -> Void
    ) {
        if _mutateUnannounced(apply) { return }
        _announce(kind, at: indexes, removed: removed, inserted: inserted, apply: apply)
    }

    // The announcing paths of the one-element mutations, out of line: a mutation nobody is told of then
    // runs in a small frame, and builds no one-element arrays for records nobody gets.

    @inlinable
    @inline(never)
    func _announceAppend(of element: Element) {
        // (`insert(_:at:)` without its check of the index, which is the count here.)
        let index = _withCurrent { $0.count }
        // (Appended, unless a prior callback changed the array meanwhile: the records say `index`.)
        _OneElementArray.with(element) { inserted in
            _announce(.insertion, at: .single(index), removed: nil, inserted: inserted) {
                if $0.count == index { $0.append(element) } else { $0.insert(element, at: index) }
            }
        }
    }

    @inlinable
    @inline(never)
    func _announceInsertion(of element: Element, at index: Int) {
        _OneElementArray.with(element) { inserted in
            _announce(.insertion, at: .single(index), removed: nil, inserted: inserted) {
                $0.insert(element, at: index)
            }
        }
    }

    @inlinable
    @inline(never)
    func _announceRemoval(of element: Element, at index: Int) {
        _OneElementArray.with(element) { removed in
            _announce(.removal, at: .single(index), removed: removed, inserted: nil) { _ = $0.remove(at: index) }
        }
    }

    @inlinable
    @inline(never)
    func _announceReplacement(of replaced: Element, with element: Element, at index: Int) {
        _announce(.replacement, at: .single(index), removed: [replaced], inserted: [element]) { $0[index] = element }
    }

    /// `mutate` once `_mutateUnannounced` has said no.
    @inlinable
    func _announce(
        _ kind: KVOChangeKind,
        at indexes: _KVOIndexes,
        removed: [Element]?,
        inserted: [Element]?,
        apply: (inout [Element]) -> Void
    ) {
        // (The elements' addresses are taken here, where their type is concrete: see `_CollectionParts`.)
        _CollectionParts.withAddresses(of: removed, inserted) { removedAddress, insertedAddress in
            object.kvoRegistrar.mutateCollection(
                of: object,
                keyPath: keyPath,
                storage: storage,
                kind: kind,
                indexes: indexes,
                removed: removed,
                inserted: inserted,
                addresses: (removedAddress, insertedAddress),
                apply: apply
            )
        }
    }
}

@available(*, unavailable, message: "A KVOMutableArray mutates its object on the calling thread")
extension KVOMutableArray: Sendable {}
