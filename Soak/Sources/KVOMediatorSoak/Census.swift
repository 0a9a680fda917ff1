import Synchronization

/// How many objects of one kind are alive: incremented by their `init`, decremented by their `deinit`,
/// so that the end of the run can check that every one was released.
final class LiveCount: Sendable {
    let kind: String
    private let alive = Atomic<Int>(0)

    init(_ kind: String) {
        self.kind = kind
    }

    func born() {
        alive.wrappingAdd(1, ordering: .relaxed)
    }

    func died() {
        alive.wrappingSubtract(1, ordering: .relaxed)
    }

    /// The number alive now; exact once the threads that make and release them have been joined.
    var count: Int {
        alive.load(ordering: .relaxed)
    }
}

/// The soak's objects alive, by kind.
enum Census {
    static let cells = LiveCount("cells")
    static let chainLinks = LiveCount("chain links")
    static let racingLinks = LiveCount("racing links")
    static let observers = LiveCount("observers")

    static let all = [cells, chainLinks, racingLinks, observers]
}
