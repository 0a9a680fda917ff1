import Observation

// The models are in Models/ (shared with the benchmark suite); here is Observation's observer.

/// Keeps an observation alive the only way Observation allows: `withObservationTracking` fires
/// once, on the first `willSet`, so `onChange` registers again (the documented idiom).
final class ObservationRelay: @unchecked Sendable {  // used by one thread at a time
    private let read: () -> Int
    /// Registrations made: the first, then one per change.
    let tracked = Received()

    init(read: @escaping () -> Int) {
        self.read = read
    }

    func track() {
        withObservationTracking {
            tracked.record(read())
        } onChange: { [unowned self] in
            self.track()
        }
    }
}
