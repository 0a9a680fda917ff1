/// A list that keeps its first element inline: most registrations have one dependency, most slots
/// and most observed objects one registration, and then no array is allocated at all.
struct InlineList<Element>: RandomAccessCollection {
    // Invariant: `first` is nil only when the list is empty, and `rest` is nil or not empty.
    // (`rest` first: an element whose size is not a multiple of 8, a dependency's 17 bytes, then ends the
    // list with no padding before the array.)
    /// The elements after the first; nil rather than empty, so that copying a list of one touches no array.
    private var rest: [Element]?
    private var first: Element?

    init() {}

    init(_ element: Element) {
        first = element
    }

    var count: Int {
        first == nil ? 0 : 1 + (rest?.count ?? 0)
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }
    var isEmpty: Bool { first == nil }

    /// The element at `position`; setting one replaces it in place (the list keeps its storage).
    subscript(position: Int) -> Element {
        get { position == 0 ? first.unsafelyUnwrapped : rest.unsafelyUnwrapped[position - 1] }
        set {
            if position == 0 { first = newValue } else { rest![position - 1] = newValue }
        }
    }

    func makeIterator() -> Iterator {
        Iterator(list: self)
    }

    /// Walks the inline element, then the rest, with no index arithmetic through generic witnesses.
    struct Iterator: IteratorProtocol {
        let list: InlineList
        var position = 0

        mutating func next() -> Element? {
            guard position < list.count else { return nil }
            defer { position += 1 }
            return list[position]
        }
    }

    /// Calls `body` with each element, in order (without copying the list, as iterating does).
    @inline(__always)
    func forEachElement(_ body: (Element) throws -> Void) rethrows {
        guard let first else { return }
        try body(first)
        if let rest { try rest.forEach(body) }
    }

    mutating func append(_ element: Element) {
        if first == nil {
            first = element
        } else if rest == nil {
            // Room for a chain's few links at once, rather than growing 1, 2, 4 (a copy each).
            var rest: [Element] = []
            rest.reserveCapacity(3)
            rest.append(element)
            self.rest = rest
        } else {
            rest!.append(element)
        }
    }

    /// Removes the elements that match, calling `matches` once per element, in order.
    mutating func removeAll(where matches: (Element) throws -> Bool) rethrows {
        guard let element = first else { return }
        if try matches(element) { first = nil }
        if rest != nil { try rest!.removeAll(where: matches) }
        normalize()
    }

    /// The position of the last element that matches.
    func lastIndex(where matches: (Element) throws -> Bool) rethrows -> Int? {
        var position = count - 1
        while position >= 0 {
            if try matches(self[position]) { return position }
            position -= 1
        }
        return nil
    }

    mutating func remove(at position: Int) {
        if position == 0 {
            first = nil
        } else {
            rest!.remove(at: position - 1)
        }
        normalize()
    }

    /// Moves the next element into an empty first place, and drops an empty rest.
    private mutating func normalize() {
        if first == nil, rest != nil { first = rest!.removeFirst() }
        if rest?.isEmpty == true { rest = nil }
    }
}
