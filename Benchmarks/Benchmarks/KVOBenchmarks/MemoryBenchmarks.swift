import Benchmark
import KVOMediator
import Observation
import OpenCombine

// memory_per_registration: the heap that 100,000 live registrations hold, per registration.
//
// Method: the benchmark's `memoryLeakedBytes` metric (from the malloc interposer) is the bytes
// requested from malloc minus the bytes freed inside the measured region. The region makes the
// 100,000 registrations and keeps them alive; the objects, the observer and its controller exist
// before it, and everything is released after it. Requested bytes do not include malloc's own
// per-chunk overhead (8 bytes of header, rounding to 16); run.sh also reports mallocs per
// registration, from which that overhead can be estimated.
// - ours: one controller observing \.x on 100,000 objects;
// - Observation: 100,000 `withObservationTracking` registrations (one per object), consumed after
//   the region by one set each;
// - OpenCombine: 100,000 `$x.sink`s (one per object; each property's subject created beforehand),
//   kept in a pre-sized array, cancelled after the region.

private let registrationCount = 100_000

func registerMemoryBenchmarks() {
    let metric = "memory_per_registration"
    let memoryConfiguration = configuration(
        warmupIterations: 1,
        maxDuration: .seconds(30),
        maxIterations: 8,
        extraMetrics: [.memoryLeakedBytes]
    )

    register(
        metric,
        "ours",
        operations: registrationCount,
        configuration: memoryConfiguration,
        setup: Fixture((0..<registrationCount).map { _ in Counter() }, retaining: [Watcher()])
    ) { benchmark, fixture in
        let watcher = fixture.retained[0] as! Watcher
        let box = ControllerBox()
        box.controller = KVOController(observer: watcher)
        let controller = box.controller!
        benchmark.startMeasurement()
        for model in fixture.model {
            controller.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                blackHole(change.newValue)
            }
        }
        benchmark.stopMeasurement()
        box.controller = nil
    }

    register(
        metric,
        "Observation",
        operations: registrationCount,
        configuration: memoryConfiguration,
        setup: Fixture((0..<registrationCount).map { _ in ObservationCounter() })
    ) { benchmark, fixture in
        benchmark.startMeasurement()
        for model in fixture.model {
            withObservationTracking {
                blackHole(model.x)
            } onChange: {
            }
        }
        benchmark.stopMeasurement()
        var value = fixture.counter
        for model in fixture.model {
            value &+= 1
            model.x = value
        }
        fixture.counter = value
    }

    register(
        metric,
        "OpenCombine",
        operations: registrationCount,
        configuration: memoryConfiguration,
        setup: publishingCombineCounters()
    ) { benchmark, fixture in
        var cancellables: [AnyCancellable] = []
        cancellables.reserveCapacity(registrationCount)
        benchmark.startMeasurement()
        for model in fixture.model {
            cancellables.append(model.$x.sink { blackHole($0) })
        }
        benchmark.stopMeasurement()
        cancellables.removeAll()
    }
}

/// Counters whose `@Published` subjects already exist (each is created on the first `$x`).
private func publishingCombineCounters() -> Fixture<[CombineCounter]> {
    let models = (0..<registrationCount).map { _ in CombineCounter() }
    for model in models { _ = model.$x }
    return Fixture(models)
}
