import Benchmark
import KVOMediator
import Observation
import OpenCombine

// observe_unobserve: one registration made and removed.
// - ours: `observe` then `unobserve` through one controller, same object and key path each time;
// - Observation has no cancel: one cycle is `withObservationTracking` (empty onChange) followed by
//   one set, which fires the onChange and so removes the registration; without the set,
//   registrations would pile up in the model's registrar;
// - OpenCombine: `$x.sink` then `cancel()` (a sink receives the current value on subscription).
//
// observe_unobserve_chain: the same for `\.a.b.c` (Observation's set is of `c`; OpenCombine's
// registration is the `map` + `switchToLatest` chain).
//
// observe_unobserve_k1 / _k1000: one controller already observes K distinct key paths of one object
// (`Wide`'s `p0` …), and observes and unobserves one more (`p1000`) through the same controller.
// observe_unobserve_m1 / _m10000: M controllers already observe `x` of one object, and one more
// controller observes and unobserves it. Both ask whether a registration's cost grows with what else
// is registered.
//
// teardown_N: a controller holding N observations (one per object) is released; only the release
// is measured, cost reported per observation.

private let cycleCount = 1_000
/// Fewer cycles where the cost may grow with K or M, so that a slow iteration stays short.
private let crowdedCycleCount = 100

func registerLifecycleBenchmarks() {
    registerObserveUnobserve()
    registerObserveUnobserveChain()
    registerObserveUnobserveAmongKeyPaths()
    registerObserveUnobserveAmongControllers()
    registerTeardown()
}

// MARK: - observe_unobserve

private func registerObserveUnobserve() {
    let metric = "observe_unobserve"

    register(metric, "ours", operations: cycleCount, setup: watchedCounter()) { _, fixture in
        let controller = (fixture.retained[0] as! Watcher).kvoController
        let model = fixture.model
        for _ in 0..<cycleCount {
            controller.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                blackHole(change.newValue)
            }
            controller.unobserve(model, keyPath: \.x)
        }
    }

    // The token form: `object.observe(_:options:changeHandler:)`, then `invalidate()`.
    register(metric, "oursToken", operations: cycleCount, setup: Fixture(Counter())) { _, fixture in
        let model = fixture.model
        for _ in 0..<cycleCount {
            let token = try? model.observe(\.x, options: [.new, .old]) { _, change in blackHole(change.newValue) }
            token?.invalidate()
        }
    }

    register(metric, "Observation", operations: cycleCount, setup: Fixture(ObservationCounter())) { _, fixture in
        let model = fixture.model
        var value = fixture.counter
        for _ in 0..<cycleCount {
            withObservationTracking {
                blackHole(model.x)
            } onChange: {
            }
            value &+= 1
            model.x = value
        }
        fixture.counter = value
    }

    register(metric, "OpenCombine", operations: cycleCount, setup: publishingCombineCounter()) { _, fixture in
        let model = fixture.model
        for _ in 0..<cycleCount {
            let cancellable = model.$x.sink { blackHole($0) }
            cancellable.cancel()
        }
    }
}

/// A counter and a watcher whose lazy controller already exists.
private func watchedCounter() -> Fixture<Counter> {
    Fixture(Counter(), retaining: [watcherWithController()])
}

/// A chain's root and a watcher whose lazy controller already exists.
private func watchedRoot() -> Fixture<Root> {
    Fixture(Root(), retaining: [watcherWithController()])
}

/// A watcher whose lazy controller already exists.
private func watcherWithController() -> Watcher {
    let watcher = Watcher()
    _ = watcher.kvoController
    return watcher
}

/// A counter whose `@Published` subject already exists (it is created on the first `$x`).
private func publishingCombineCounter() -> Fixture<CombineCounter> {
    let model = CombineCounter()
    _ = model.$x
    return Fixture(model)
}

// MARK: - observe_unobserve_chain

private func registerObserveUnobserveChain() {
    let metric = "observe_unobserve_chain"

    register(metric, "ours", operations: cycleCount, setup: watchedRoot()) { _, fixture in
        let controller = (fixture.retained[0] as! Watcher).kvoController
        let root = fixture.model
        for _ in 0..<cycleCount {
            controller.observe(root, keyPath: \.a.b.c, options: [.new, .old]) { _, _, change in
                blackHole(change.newValue)
            }
            controller.unobserve(root, keyPath: \.a.b.c)
        }
    }

    register(metric, "Observation", operations: cycleCount, setup: Fixture(ObservationRoot())) { _, fixture in
        let root = fixture.model
        let leaf = root.a.b
        var value = fixture.counter
        for _ in 0..<cycleCount {
            withObservationTracking {
                blackHole(root.a.b.c)
            } onChange: {
            }
            value &+= 1
            leaf.c = value
        }
        fixture.counter = value
    }

    register(metric, "OpenCombine", operations: cycleCount, setup: Fixture(CombineRoot())) { _, fixture in
        let root = fixture.model
        for _ in 0..<cycleCount {
            sinkChain(root).cancel()
        }
    }
}

// MARK: - observe_unobserve_kN

private func registerObserveUnobserveAmongKeyPaths() {
    for observed in [1, 1_000] {
        register(
            "observe_unobserve_k\(observed)",
            "ours",
            operations: crowdedCycleCount,
            setup: wide(observingItsFirst: observed)
        ) { _, fixture in
            let controller = (fixture.retained[0] as! Watcher).kvoController
            let model = fixture.model
            for _ in 0..<crowdedCycleCount {
                controller.observe(model, keyPath: \.p1000, options: [.new, .old]) { _, _, change in
                    blackHole(change.newValue)
                }
                controller.unobserve(model, keyPath: \.p1000)
            }
        }
    }
}

/// A `Wide` whose first `count` properties one watcher's controller observes.
private func wide(observingItsFirst count: Int) -> Fixture<Wide> {
    let model = Wide()
    let watcher = watcherWithController()
    for keyPath in Wide.keyPaths.prefix(count) {
        watcher.kvoController.observe(model, keyPath: keyPath, options: [.new, .old]) { _, _, change in
            blackHole(change.newValue)
        }
    }
    return Fixture(model, retaining: [watcher])
}

// MARK: - observe_unobserve_mN

private func registerObserveUnobserveAmongControllers() {
    for others in [1, 10_000] {
        register(
            "observe_unobserve_m\(others)",
            "ours",
            operations: crowdedCycleCount,
            setup: counter(observedBy: others)
        ) { _, fixture in
            let controller = (fixture.retained[0] as! Watcher).kvoController
            let model = fixture.model
            for _ in 0..<crowdedCycleCount {
                controller.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                    blackHole(change.newValue)
                }
                controller.unobserve(model, keyPath: \.x)
            }
        }
    }
}

/// A counter whose `x` the controllers of `count` watchers observe, and one more watcher (`retained[0]`).
private func counter(observedBy count: Int) -> Fixture<Counter> {
    let model = Counter()
    let others = (0..<count).map { _ in Watcher() }
    for other in others {
        other.kvoController.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
            blackHole(change.newValue)
        }
    }
    return Fixture(model, retaining: [watcherWithController(), others])
}

// MARK: - teardown_N

/// Each iteration builds a controller with N observations unmeasured, then measures its release.
private func registerTeardown() {
    for (label, count, iterations) in [("1e3", 1_000, 300), ("1e4", 10_000, 60), ("1e5", 100_000, 12)] {
        let teardownConfiguration = configuration(
            warmupIterations: 1,
            maxDuration: .seconds(30),
            maxIterations: iterations
        )
        register(
            "teardown_\(label)",
            "ours",
            operations: count,
            configuration: teardownConfiguration,
            setup: Fixture((0..<count).map { _ in Counter() }, retaining: [Watcher()])
        ) { benchmark, fixture in
            let box = ControllerBox()
            box.controller = KVOController(observer: fixture.retained[0] as! Watcher)
            for model in fixture.model {
                box.controller!.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                    blackHole(change.newValue)
                }
            }
            benchmark.startMeasurement()
            box.controller = nil
            benchmark.stopMeasurement()
            blackHole(box)
        }
    }
}
