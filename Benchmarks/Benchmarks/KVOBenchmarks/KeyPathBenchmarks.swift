import Benchmark
import KVOMediator
import Observation
import OpenCombine

// What a key path beyond one property costs to keep observed: a chain `\.a.b.c` whose last link
// changes (notify_chain) or whose middle link is replaced (notify_chain_replace), and a computed
// property of two inputs (notify_computed). Observers as in NotifyBenchmarks.swift: ours a
// KVOController block with [.new, .old]; Observation `withObservationTracking` re-registered in its
// onChange (re-reading the whole key path, as it must); OpenCombine `map` + `switchToLatest` per link
// for a chain, one sink per input for a computed property.

private let changeCount = 1_000

func registerKeyPathBenchmarks() {
    registerChain()
    registerChainReplace()
    registerComputed()
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
    return Fixture(root.a.b, retaining: [root, sinkChain(root)])
}

/// OpenCombine's `\.a.b.c`: one `map` + `switchToLatest` per link.
func sinkChain(_ root: CombineRoot) -> AnyCancellable {
    root.$a
        .map { $0.$b }
        .switchToLatest()
        .map { $0.$c }
        .switchToLatest()
        .sink { blackHole($0) }
}

// MARK: - notify_chain_replace

/// `\.a.b.c`: `b` is replaced, alternately by two prepared leaves whose `c` are 1 and 2, so every
/// replacement moves the observation to another object and changes the observed value.
private func registerChainReplace() {
    let metric = "notify_chain_replace"

    register(metric, "ours", operations: changeCount, setup: replacing(observedChain())) { _, fixture in
        let middle = fixture.model.middle
        let (even, odd) = fixture.model.leaves
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            middle.b = value & 1 == 0 ? even : odd
        }
        fixture.counter = value
    }

    register(metric, "Observation", operations: changeCount, setup: replacing(trackedObservationChain())) {
        _,
        fixture in
        let middle = fixture.model.middle
        let (even, odd) = fixture.model.leaves
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            middle.b = value & 1 == 0 ? even : odd
        }
        fixture.counter = value
    }

    register(metric, "OpenCombine", operations: changeCount, setup: replacing(sunkCombineChain())) { _, fixture in
        let middle = fixture.model.middle
        let (even, odd) = fixture.model.leaves
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            middle.b = value & 1 == 0 ? even : odd
        }
        fixture.counter = value
    }
}

/// A chain's middle object and the two leaves that take turns as its `b`.
private struct Replacement<Middle, Leaf> {
    let middle: Middle
    let leaves: (even: Leaf, odd: Leaf)
}

/// The observed chain of `fixture` (whose model is its leaf), set up for replacing its middle link.
private func replacing(_ fixture: Fixture<Leaf>) -> Fixture<Replacement<Middle, Leaf>> {
    let root = fixture.retained[0] as! Root
    let leaves = (even: Leaf(), odd: Leaf())
    leaves.even.c = 1
    leaves.odd.c = 2
    return Fixture(Replacement(middle: root.a, leaves: leaves), retaining: fixture.retained)
}

private func replacing(
    _ fixture: Fixture<ObservationLeaf>
) -> Fixture<Replacement<ObservationMiddle, ObservationLeaf>> {
    let root = fixture.retained[0] as! ObservationRoot
    let leaves = (even: ObservationLeaf(), odd: ObservationLeaf())
    leaves.even.c = 1
    leaves.odd.c = 2
    return Fixture(Replacement(middle: root.a, leaves: leaves), retaining: fixture.retained)
}

private func replacing(_ fixture: Fixture<CombineLeaf>) -> Fixture<Replacement<CombineMiddle, CombineLeaf>> {
    let root = fixture.retained[0] as! CombineRoot
    let leaves = (even: CombineLeaf(), odd: CombineLeaf())
    leaves.even.c = 1
    leaves.odd.c = 2
    return Fixture(Replacement(middle: root.a, leaves: leaves), retaining: fixture.retained)
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
