/// Holds observation tokens and ends them together: when the bag deinitialises, or on ``invalidateAll()``.
///
/// ```swift
/// let bag = KVOObservationBag()
/// try model.observe(\.name) { _, change in print(change.newValue!) }.store(in: bag)
/// try model.observe(\.age) { _, change in print(change.newValue!) }.store(in: bag)
/// bag.invalidateAll()
/// ```
public final class KVOObservationBag: @unchecked Sendable {  // `observations` is guarded by `lock`
    private let lock = Lock()
    private var observations: [KVOObservation] = []

    /// Creates an empty bag.
    public init() {}

    deinit {
        invalidateAll()
    }

    /// Adds a token; it is invalidated with the bag.
    public func insert(_ observation: KVOObservation) {
        lock.withLock { observations.append(observation) }
    }

    /// Invalidates every token in the bag and empties it; the bag can be filled again.
    public func invalidateAll() {
        let ended = lock.withLock {
            let ended = observations
            observations = []
            return ended
        }
        for observation in ended {
            observation.invalidate()
        }
    }

    /// How many tokens the bag holds.
    public var count: Int {
        lock.withLock { observations.count }
    }
}
