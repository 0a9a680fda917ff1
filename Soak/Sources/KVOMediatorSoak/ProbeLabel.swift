/// Where a registration came from, for violation messages.
struct ProbeLabel: Sendable, CustomStringConvertible {
    /// The observing thread.
    var thread: Int
    /// The thread that owns (and alone writes) the target.
    var owner: Int
    var target: Target
    /// How it was registered: "controller", "token" or "bag".
    var front: StaticString
    /// Whether it lives for the whole phase (else it is churned).
    var isLive: Bool

    var description: String {
        "\(isLive ? "live" : "churned") \(front) registration of thread \(thread) on thread \(owner)'s \(target)"
    }
}
