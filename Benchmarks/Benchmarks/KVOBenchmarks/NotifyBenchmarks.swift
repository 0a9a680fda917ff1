import Benchmark
import KVOMediator
import Observation
import OpenCombine

// notify_*: the cost of one change delivered to its observers, from the set to the end of the
// callbacks. Every callback receives the new value and hands it to `blackHole`.
//
// How each peer observes:
// - ours: a KVOController block with [.new, .old];
// - Observation: `withObservationTracking` whose onChange registers again (it fires once, on
//   willSet, and gets no value: the re-registration reads the property, as an app must);
// - OpenCombine: `$x.sink`;
// - didSetClosure: a didSet that calls one stored closure with the old and new value (the floor).
// Chains and computed properties are in KeyPathBenchmarks.swift.

private let changeCount = 1_000
private let crowdSize = 100_000

func registerNotifyBenchmarks() {
    registerNotifyOne()
    registerFanout()
    registerCrowded()
    registerCrowdedSameObject()
    registerSlots()
}

// MARK: - notify_1

private func registerNotifyOne() {
    let metric = "notify_1"

    register(metric, "ours", operations: changeCount, setup: observedCounter()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.x = value
        }
        fixture.counter = value
    }

    // `.distinct`, each set a new value: what comparing old and new costs when they differ.
    register(
        "notify_1_distinct",
        "ours",
        operations: changeCount,
        setup: observedCounter(options: [.new, .old, .distinct])
    ) {
        _,
        fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.x = value
        }
        fixture.counter = value
    }

    register(metric, "Observation", operations: changeCount, setup: trackedObservationCounter()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.x = value
        }
        fixture.counter = value
    }

    register(metric, "OpenCombine", operations: changeCount, setup: sunkCombineCounter()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.x = value
        }
        fixture.counter = value
    }

    register(metric, "didSetClosure", operations: changeCount, setup: didSetCounter()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.x = value
        }
        fixture.counter = value
    }
}

/// A counter observed by one controller with [.new, .old].
private func observedCounter(options: KVOOptions = [.new, .old]) -> Fixture<Counter> {
    let model = Counter()
    let watcher = Watcher()
    watcher.kvoController.observe(model, keyPath: \.x, options: options) { _, _, change in
        blackHole(change.newValue)
    }
    return Fixture(model, retaining: [watcher])
}

private func trackedObservationCounter() -> Fixture<ObservationCounter> {
    let model = ObservationCounter()
    let relay = ObservationRelay { model.x }
    relay.track()
    return Fixture(model, retaining: [relay])
}

private func sunkCombineCounter() -> Fixture<CombineCounter> {
    let model = CombineCounter()
    let cancellable = model.$x.sink { blackHole($0) }
    return Fixture(model, retaining: [cancellable])
}

private func didSetCounter() -> Fixture<DidSetCounter> {
    let model = DidSetCounter()
    model.onChange = { _, new in blackHole(new) }
    return Fixture(model)
}

// MARK: - notify_fanout_N

/// N controllers on one key path; each iteration makes 1,000 callbacks (1,000 / N changes).
private func registerFanout() {
    for observers in [10, 100, 1_000] {
        let changes = changeCount / observers
        let metric = "notify_fanout_\(observers)"
        register(metric, "ours", operations: changes * observers, setup: fannedOutCounter(observers)) { _, fixture in
            var value = fixture.counter
            for _ in 0..<changes {
                value &+= 1
                fixture.model.x = value
            }
            fixture.counter = value
        }
    }
}

private func fannedOutCounter(_ observers: Int) -> Fixture<Counter> {
    let model = Counter()
    let watchers = (0..<observers).map { _ in Watcher() }
    for watcher in watchers {
        watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
            blackHole(change.newValue)
        }
    }
    return Fixture(model, retaining: watchers)
}

// MARK: - notify_1_crowded

/// notify_1 while 100,000 unrelated registrations (one controller on 100,000 other objects) exist.
private func registerCrowded() {
    let crowdedConfiguration = configuration(maxDuration: .seconds(1))

    register(
        "notify_1_crowded",
        "ours",
        operations: changeCount,
        configuration: crowdedConfiguration,
        setup: crowdedCounter()
    ) { _, fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.x = value
        }
        fixture.counter = value
    }
}

private func crowdedCounter() -> Fixture<Counter> {
    let others = (0..<crowdSize).map { _ in Counter() }
    let crowd = Watcher()
    for other in others {
        crowd.kvoController.observe(other, keyPath: \.x, options: [.new, .old]) { _, _, change in
            blackHole(change.newValue)
        }
    }
    let fixture = observedCounter()
    fixture.retained += [others, crowd]
    return fixture
}

// MARK: - notify_1_crowded_same_object

/// notify_1 while 100,000 other registrations exist on other slots of the same object: 100 on each of
/// `Wide`'s first 1,000 properties (one controller each), registered before the observed one, `p1000`.
private func registerCrowdedSameObject() {
    register(
        "notify_1_crowded_same_object",
        "ours",
        operations: changeCount,
        configuration: configuration(maxDuration: .seconds(1)),
        setup: crowdedWide()
    ) { _, fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.p1000 = value
        }
        fixture.counter = value
    }
}

private func crowdedWide() -> Fixture<Wide> {
    let model = Wide()
    let others = Wide.keyPaths.dropLast()
    let crowd = (0..<crowdSize).map { _ in Watcher() }
    for (index, watcher) in crowd.enumerated() {
        let keyPath = others[index % others.count]
        watcher.kvoController.observe(model, keyPath: keyPath, options: [.new, .old]) { _, _, change in
            blackHole(change.newValue)
        }
    }
    let watcher = Watcher()
    watcher.kvoController.observe(model, keyPath: \.p1000, options: [.new, .old]) { _, _, change in
        blackHole(change.newValue)
    }
    return Fixture(model, retaining: [crowd, watcher])
}

// MARK: - notify_slots_100

/// One object with 100 observed slots (`Wide`'s `p0` … `p99`, each observed once by one controller):
/// the last one registered, `p99`, changes.
private func registerSlots() {
    register("notify_slots_100", "ours", operations: changeCount, setup: hundredSlots()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.p99 = value
        }
        fixture.counter = value
    }
}

private func hundredSlots() -> Fixture<Wide> {
    let model = Wide()
    let watcher = Watcher()
    for keyPath in Wide.keyPaths.prefix(100) {
        watcher.kvoController.observe(model, keyPath: keyPath, options: [.new, .old]) { _, _, change in
            blackHole(change.newValue)
        }
    }
    return Fixture(model, retaining: [watcher])
}
