import Benchmark
import KVOMediator
import Observation
import OpenCombine

// The models each implementation observes: the same shape everywhere (an Int `x`, a chain
// `a.b.c`, a computed `sum` of two stored properties), so that only the observation
// machinery differs.
//
// Every model is `@unchecked Sendable`: a benchmark hands it to one thread at a time (the
// two_threads benchmark gives each thread its own object), and KVOMediator's `@Sendable`
// blocks and Observation's `@Sendable` onChange closures receive or capture it.

// MARK: - KVOMediator

final class Counter: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var x = 0
}

final class Leaf: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var c = 0
}

final class Middle: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var b = Leaf()
}

final class Root: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var a = Middle()
}

final class Sum: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var first = 0
    @Observed var last = 0
    var sum: Int { first + last }
}

/// The observer that owns a controller, FBKVOController style.
final class Watcher {
    lazy var kvoController = KVOController(observer: self)
}

/// Holds a controller so that the benchmark decides exactly where it is released.
final class ControllerBox {
    var controller: KVOController<Watcher>?
}

// MARK: - Observation

@Observable final class ObservationCounter: @unchecked Sendable {
    var x = 0
}

@Observable final class ObservationLeaf: @unchecked Sendable {
    var c = 0
}

@Observable final class ObservationMiddle: @unchecked Sendable {
    var b = ObservationLeaf()
}

@Observable final class ObservationRoot: @unchecked Sendable {
    var a = ObservationMiddle()
}

@Observable final class ObservationSum: @unchecked Sendable {
    var first = 0
    var last = 0
    var sum: Int { first + last }
}

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

// MARK: - OpenCombine

final class CombineCounter {
    @Published var x = 0
}

final class CombineLeaf {
    @Published var c = 0
}

final class CombineMiddle {
    @Published var b = CombineLeaf()
}

final class CombineRoot {
    @Published var a = CombineMiddle()
}

final class CombineSum {
    @Published var first = 0
    @Published var last = 0
    var sum: Int { first + last }
}

// MARK: - The floor

/// A stored property.
final class PlainCounter {
    var x = 0
}

/// A stored property whose didSet calls one closure: the least any notification can cost.
final class DidSetCounter {
    var onChange: ((Int, Int) -> Void)?
    var x = 0 {
        didSet { onChange?(oldValue, x) }
    }
}

// MARK: - Helpers

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
