/// The last few things a tracker found (``AccessTracker``'s answers about declared keys): appended until
/// `capacity` are kept, then each new one replaces the oldest. Looked up by a linear search, which for
/// so few costs less than hashing.
struct RecentRing<Element> {
    private(set) var elements: [Element] = []
    /// The place of the oldest element, once the ring is full.
    private var next = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Keeps `element`, replacing the oldest if the ring is full; returns the one replaced, if any.
    @discardableResult
    mutating func keep(_ element: Element) -> Element? {
        if elements.count < capacity {
            elements.append(element)
            return nil
        }
        let replaced = elements[next]
        elements[next] = element
        next = (next + 1) % capacity
        return replaced
    }
}
