/// Remembers objects weakly, to check at the end of an input that each one has deinitialised.
///
/// ```swift
/// let lifetimes = LifetimeWatch()
/// lifetimes.watch(controller, "controller 0")
/// controller = nil
/// lifetimes.requireAllGone()   // traps, naming it, if the controller still lives
/// ```
public final class LifetimeWatch {
    private struct Entry {
        weak var object: AnyObject?
        let label: String
    }

    private var entries: [Entry] = []

    /// Creates an empty watch.
    public init() {}

    /// Watches `object`, named `label` in the message if it outlives `requireAllGone()`.
    public func watch(_ object: AnyObject, _ label: @autoclosure () -> String) {
        entries.append(Entry(object: object, label: label()))
    }

    /// The labels of the watched objects that are still alive.
    public var survivors: [String] {
        entries.filter { $0.object != nil }.map(\.label)
    }

    /// Traps unless every watched object has deinitialised.
    public func requireAllGone(file: StaticString = #fileID, line: UInt = #line) {
        let alive = survivors
        invariant(alive.isEmpty, "still alive after being released: \(alive)", file: file, line: line)
    }
}
