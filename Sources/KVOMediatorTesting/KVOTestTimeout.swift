/// A wait of the test kit that ran out of time (``KVORecorder/next(timeout:)``,
/// ``KVORecorder/waitFor(_:timeout:)``, ``settleKVODeliveries(timeout:)``): what it waited for and what came.
public struct KVOTestTimeout: Error, CustomStringConvertible, Sendable {
    /// How many records it waited for (0 for ``settleKVODeliveries(timeout:)``).
    public let expected: Int
    /// How many had come.
    public let received: Int
    /// How long it waited.
    public let timeout: Duration
    /// Whether the main actor ran the deliveries queued to it while the wait lasted: false when the main
    /// thread is blocked (a synchronous test running on it), where `.mainActor` deliveries cannot run.
    public let mainActorRan: Bool

    public var description: String {
        var text =
            expected > 0
            ? "KVOMediatorTesting: waited \(timeout) for \(expected) records and \(received) came"
            : "KVOMediatorTesting: queued deliveries did not all run within \(timeout)"
        if !mainActorRan {
            text += "; the main actor did not run what was queued to it: is the main thread blocked (a synchronous "
            text += "test on it, or a semaphore)? Make the test async, or deliver on a queue instead of .mainActor"
        }
        return text
    }
}
