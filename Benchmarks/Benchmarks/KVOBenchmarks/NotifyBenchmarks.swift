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
// - OpenCombine: `$x.sink`; a chain uses `map` + `switchToLatest` per step; a computed property
//   uses one sink per dependency (OpenCombine 0.14 has no combineLatest);
// - didSetClosure: a didSet that calls one stored closure with the old and new value (the floor).

private let changeCount = 1_000
private let crowdSize = 100_000

func registerNotifyBenchmarks() {
    registerNotifyOne()
    registerFanout()
    registerChain()
    registerComputed()
    registerCrowded()
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
private func observedCounter() -> Fixture<Counter> {
    let model = Counter()
    let watcher = Watcher()
    watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
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

// MARK: - notify_chain

/// `\.a.b.c`: the last object of the chain changes.
private func registerChain() {
    let metric = "notify_chain"

    register(metric, "ours", operations: changeCount, setup: observedChain()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.c = value
        }
        fixture.counter = value
    }

    register(metric, "Observation", operations: changeCount, setup: trackedObservationChain()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.c = value
        }
        fixture.counter = value
    }

    register(metric, "OpenCombine", operations: changeCount, setup: sunkCombineChain()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.c = value
        }
        fixture.counter = value
    }
}

/// The fixture's model is the chain's leaf; the root is retained.
private func observedChain() -> Fixture<Leaf> {
    let root = Root()
    let watcher = Watcher()
    watcher.kvoController.observe(root, keyPath: \.a.b.c, options: [.new, .old]) { _, _, change in
        blackHole(change.newValue)
    }
    return Fixture(root.a.b, retaining: [root, watcher])
}

private func trackedObservationChain() -> Fixture<ObservationLeaf> {
    let root = ObservationRoot()
    let relay = ObservationRelay { root.a.b.c }
    relay.track()
    return Fixture(root.a.b, retaining: [root, relay])
}

private func sunkCombineChain() -> Fixture<CombineLeaf> {
    let root = CombineRoot()
    let cancellable = root.$a
        .map { $0.$b }
        .switchToLatest()
        .map { $0.$c }
        .switchToLatest()
        .sink { blackHole($0) }
    return Fixture(root.a.b, retaining: [root, cancellable])
}

// MARK: - notify_computed

/// `sum` reads two observable properties; the first one changes.
private func registerComputed() {
    let metric = "notify_computed"

    register(metric, "ours", operations: changeCount, setup: observedSum()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.first = value
        }
        fixture.counter = value
    }

    register(metric, "Observation", operations: changeCount, setup: trackedObservationSum()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.first = value
        }
        fixture.counter = value
    }

    register(metric, "OpenCombine", operations: changeCount, setup: sunkCombineSum()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            fixture.model.first = value
        }
        fixture.counter = value
    }
}

private func observedSum() -> Fixture<Sum> {
    let model = Sum()
    let watcher = Watcher()
    watcher.kvoController.observe(model, keyPath: \.sum, options: [.new, .old]) { _, _, change in
        blackHole(change.newValue)
    }
    return Fixture(model, retaining: [watcher])
}

private func trackedObservationSum() -> Fixture<ObservationSum> {
    let model = ObservationSum()
    let relay = ObservationRelay { model.sum }
    relay.track()
    return Fixture(model, retaining: [relay])
}

/// Each sink gets its own new value and reads the other operand from the model.
private func sunkCombineSum() -> Fixture<CombineSum> {
    let model = CombineSum()
    let first = model.$first.sink { [unowned model] first in blackHole(first + model.last) }
    let last = model.$last.sink { [unowned model] last in blackHole(model.first + last) }
    return Fixture(model, retaining: [first, last])
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
