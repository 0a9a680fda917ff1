import KVOMediator
import Observation
import OpenCombine

// The models each implementation observes, the same shapes as the benchmark suite's fixtures
// (Benchmarks/KVOBenchmarks/Fixtures.swift): an Int `x`, a chain `a.b.c`, a computed `sum` of two
// stored properties. Copied, because this target must not depend on the Benchmark library.
//
// Every model is `@unchecked Sendable`: a scenario uses it on one thread, and KVOMediator's
// `@Sendable` blocks, Observation's onChange closures and the stream drivers capture it.

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

// MARK: - OpenCombine

final class CombineCounter: @unchecked Sendable {
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

// MARK: - The floors

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
