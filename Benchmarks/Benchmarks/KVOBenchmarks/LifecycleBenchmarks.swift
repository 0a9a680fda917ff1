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
// teardown_N: a controller holding N observations (one per object) is released; only the release
// is measured, cost reported per observation.

private let cycleCount = 1_000

func registerLifecycleBenchmarks() {
    registerObserveUnobserve()
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
    let watcher = Watcher()
    _ = watcher.kvoController
    return Fixture(Counter(), retaining: [watcher])
}

/// A counter whose `@Published` subject already exists (it is created on the first `$x`).
private func publishingCombineCounter() -> Fixture<CombineCounter> {
    let model = CombineCounter()
    _ = model.$x
    return Fixture(model)
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
