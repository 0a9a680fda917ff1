import Benchmark
import Observation

// The models are in Models/ (shared with KVOCallgrind); here is what the suite adds around them.

/// Keeps an observation alive the only way Observation allows: `withObservationTracking` fires
/// once, on the first `willSet`, so `onChange` registers again (the documented idiom).
final class ObservationRelay: @unchecked Sendable {  // used by one thread at a time
    private let read: () -> Int

    init(read: @escaping () -> Int) {
        self.read = read
    }

    func track() {
        withObservationTracking {
            blackHole(read())
        } onChange: { [unowned self] in
            self.track()
        }
    }
}

/// One model, the values it was last set to, and whatever keeps its observations alive.
///
/// A benchmark copies `counter` to a local before its loop and back after it: every set then gets a
/// fresh value (Observation's macro skips a set of an equal value) and no per-set access to a class
/// property (with its exclusivity check) is timed.
final class Fixture<Model> {
    let model: Model
    var counter = 0
    var retained: [Any] = []

    init(_ model: Model, retaining retained: [Any] = []) {
        self.model = model
        self.retained = retained
    }
}
