import Benchmark
import KVOMediator
import Observation

// A KeyValueObservable class bridged to Observation (`BridgedCounter`, which also conforms to
// `Observable`) beside Observation's own `@Observable` class:
// - set_unobserved_bridged: a set with nobody observing, once a read has made the object's
//   ObservationRegistrar (an `@Observable` object has one from the start);
// - notify_1_bridged: one change delivered to `withObservationTracking` whose onChange registers again,
//   as SwiftUI tracks a view's body.

private let operationCount = 1_000

func registerBridgedBenchmarks() {
    register("set_unobserved_bridged", "ours", operations: operationCount, setup: readBridgedCounter()) {
        _,
        fixture in
        var value = fixture.counter
        for _ in 0..<operationCount {
            value &+= 1
            set(fixture.model, value)
        }
        fixture.counter = value
    }

    register("set_unobserved_bridged", "Observation", operations: operationCount, setup: Fixture(ObservationCounter()))
    {
        _,
        fixture in
        var value = fixture.counter
        for _ in 0..<operationCount {
            value &+= 1
            set(fixture.model, value)
        }
        fixture.counter = value
    }

    register("notify_1_bridged", "ours", operations: operationCount, setup: trackedBridgedCounter()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<operationCount {
            value &+= 1
            fixture.model.x = value
        }
        fixture.counter = value
    }

    register("notify_1_bridged", "Observation", operations: operationCount, setup: trackedCounter()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<operationCount {
            value &+= 1
            fixture.model.x = value
        }
        fixture.counter = value
    }
}

/// A bridged counter read once, which made its ObservationRegistrar.
private func readBridgedCounter() -> Fixture<BridgedCounter> {
    let model = BridgedCounter()
    blackHole(model.x)
    return Fixture(model)
}

private func trackedBridgedCounter() -> Fixture<BridgedCounter> {
    let model = BridgedCounter()
    let relay = ObservationRelay { model.x }
    relay.track()
    return Fixture(model, retaining: [relay])
}

private func trackedCounter() -> Fixture<ObservationCounter> {
    let model = ObservationCounter()
    let relay = ObservationRelay { model.x }
    relay.track()
    return Fixture(model, retaining: [relay])
}

@inline(never)
func set(_ model: BridgedCounter, _ value: Int) {
    model.x = value
}
