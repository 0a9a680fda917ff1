/// A list that keeps its first element inline: most registrations have one dependency, most slots
/// and most observed objects one registration, and then no array is allocated at all.
struct InlineList<Element>: RandomAccessCollection {
    private var first: Element?
    /// The elements after the first; nil rather than empty, so that copying a list of one touches no array.
    private var rest: [Element]?

    init() {}

    init(_ element: Element) {
        first = element
    }

    var startIndex: Int { 0 }
    var endIndex: Int { first == nil ? 0 : 1 + (rest?.count ?? 0) }

    subscript(position: Int) -> Element {
        position == 0 ? first! : rest![position - 1]
    }

    var isEmpty: Bool { first == nil }

    /// The element of a list of exactly one.
    var only: Element? {
        rest == nil ? first : nil
    }

    mutating func append(_ element: Element) {
        if first == nil {
            first = element
        } else {
            rest = (rest ?? []) + CollectionOfOne(element)
        }
    }

    /// Removes the elements that match, calling `matches` once per element, in order.
    mutating func removeAll(where matches: (Element) throws -> Bool) rethrows {
        if let current = first, try matches(current) { first = nil }
        if rest != nil { try rest!.removeAll(where: matches) }
        normalize()
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
        if first == nil, rest != nil, !rest!.isEmpty { first = rest!.removeFirst() }
        if rest?.isEmpty == true { rest = nil }
    }
}
