/// Remembers, weakly, the objects a run made, to check at the end that every one was released.
///
/// A leak here would mean an observation kept its observer or its object alive: the check the demo
/// exists to pass (CI also runs it under valgrind).
@MainActor
final class ReleaseTracker {
    private var entries: [(label: String, isAlive: () -> Bool)] = []

    /// Tracks `object`, named `label` in the report.
    func track(_ object: AnyObject, as label: String) {
        entries.append((label, { [weak object] in object != nil }))
    }

    /// How many objects are tracked.
    var count: Int { entries.count }

    /// The labels of the tracked objects still alive.
    var alive: [String] {
        entries.filter { $0.isAlive() }.map(\.label)
    }
}
