/// Weak references to a sample of the objects a thread made (observers, controllers, transient cells),
/// checked at the end: each must be nil. Sampled, because a weak reference keeps a side table alive.
struct WeakSamples {
    private struct Entry {
        weak var object: AnyObject?
        let kind: StaticString
    }

    private var entries: [Entry] = []
    private let limit = 2_048

    mutating func add(_ object: AnyObject, kind: StaticString) {
        if entries.count < limit { entries.append(Entry(object: object, kind: kind)) }
    }

    var count: Int { entries.count }

    /// The kinds of the sampled objects still alive, once for each.
    var alive: [String] {
        entries.filter { $0.object != nil }.map { "\($0.kind)" }
    }
}
