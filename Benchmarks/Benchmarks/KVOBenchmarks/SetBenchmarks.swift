import Benchmark
import KVOMediator
import Observation
import OpenCombine

// set_unobserved: the cost of setting an observable property that nobody observes.
//
// Each set goes through a non-inlined function, the same for every implementation, so that the
// optimiser cannot merge a loop of stores to a plain property into one store.

private let setCount = 1_000

func registerSetBenchmarks() {
    let metric = "set_unobserved"

    register(metric, "ours", operations: setCount, setup: Fixture(Counter())) { _, fixture in
        var value = fixture.counter
        for _ in 0..<setCount {
            value &+= 1
            set(fixture.model, value)
        }
        fixture.counter = value
    }

    register(metric, "Observation", operations: setCount, setup: Fixture(ObservationCounter())) { _, fixture in
        var value = fixture.counter
        for _ in 0..<setCount {
            value &+= 1
            set(fixture.model, value)
        }
        fixture.counter = value
    }

    register(metric, "OpenCombine", operations: setCount, setup: Fixture(CombineCounter())) { _, fixture in
        var value = fixture.counter
        for _ in 0..<setCount {
            value &+= 1
            set(fixture.model, value)
        }
        fixture.counter = value
    }

    register(metric, "plainStored", operations: setCount, setup: Fixture(PlainCounter())) { _, fixture in
        var value = fixture.counter
        for _ in 0..<setCount {
            value &+= 1
            set(fixture.model, value)
        }
        fixture.counter = value
    }
}

@inline(never)
func set(_ model: Counter, _ value: Int) {
    model.x = value
}

@inline(never)
func set(_ model: ObservationCounter, _ value: Int) {
    model.x = value
}

@inline(never)
func set(_ model: CombineCounter, _ value: Int) {
    model.x = value
}

@inline(never)
func set(_ model: PlainCounter, _ value: Int) {
    model.x = value
}
