import KVOMediator
import Observation
import OpenCombine

// set_unobserved: one set of a property nobody observes.
// notify_*: one change delivered to its one observer, from the set to the end of the callback, which
// hands the new value to `Received.record` (counted, and checked after the loop). The observers are
// the benchmark suite's:
// - ours: a KVOController block with [.new, .old];
// - observation: `withObservationTracking` whose onChange registers again (`ObservationRelay`);
// - opencombine: `$x.sink`; a chain is `map` + `switchToLatest` per link; a computed property
//   is one sink per input;
// - didset: a didSet calling one stored closure (the floor).

func setScenarios() -> [Scenario] {
    // Each set goes through a non-inlined function, so that a loop of plain stores stays a loop.
    [
        Scenario("set_unobserved.ours") { iterations in
            let model = Counter()
            forEachNewValue(iterations) { set(model, $0) }
        },
        Scenario("set_unobserved.observation") { iterations in
            let model = ObservationCounter()
            forEachNewValue(iterations) { set(model, $0) }
        },
        Scenario("set_unobserved.opencombine") { iterations in
            let model = CombineCounter()
            forEachNewValue(iterations) { set(model, $0) }
        },
        Scenario("set_unobserved.plain") { iterations in
            let model = PlainCounter()
            forEachNewValue(iterations) { set(model, $0) }
            blackHole(model.x)
        },
    ]
}

func notifyScenarios() -> [Scenario] {
    notifyOne() + notifyChain() + notifyChainReplace() + notifyComputed()
}

private func notifyOne() -> [Scenario] {
    [
        Scenario("notify_1.ours") { iterations in
            let model = Counter()
            let received = Received()
            let watcher = Watcher()
            watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                received.record(change.newValue)
            }
            forEachNewValue(iterations) { model.x = $0 }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
        // `.distinct`, each set a new value: what comparing old and new costs when they differ.
        Scenario("notify_1_distinct.ours") { iterations in
            let model = Counter()
            let received = Received()
            let watcher = Watcher()
            watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old, .distinct]) { _, _, change in
                received.record(change.newValue)
            }
            forEachNewValue(iterations) { model.x = $0 }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
        Scenario("notify_1.observation") { iterations in
            let model = ObservationCounter()
            let relay = ObservationRelay { model.x }
            relay.track()
            forEachNewValue(iterations) { model.x = $0 }
            relay.tracked.expect(1 + iterations)
        },
        Scenario("notify_1.opencombine") { iterations in
            let model = CombineCounter()
            let received = Received()
            let cancellable = model.$x.sink { received.record($0) }
            forEachNewValue(iterations) { model.x = $0 }
            withExtendedLifetime(cancellable) { received.expect(1 + iterations) }
        },
        Scenario("notify_1.didset") { iterations in
            let model = DidSetCounter()
            let received = Received()
            model.onChange = { _, new in received.record(new) }
            forEachNewValue(iterations) { model.x = $0 }
            received.expect(iterations)
        },
    ]
}

/// `\.a.b.c`: the leaf's `c` changes.
private func notifyChain() -> [Scenario] {
    [
        Scenario("notify_chain.ours") { iterations in
            let root = Root()
            let received = Received()
            let watcher = observing(root, into: received)
            let leaf = root.a.b
            forEachNewValue(iterations) { leaf.c = $0 }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
        Scenario("notify_chain.observation") { iterations in
            let root = ObservationRoot()
            let relay = ObservationRelay { root.a.b.c }
            relay.track()
            let leaf = root.a.b
            forEachNewValue(iterations) { leaf.c = $0 }
            relay.tracked.expect(1 + iterations)
        },
        Scenario("notify_chain.opencombine") { iterations in
            let root = CombineRoot()
            let received = Received()
            let cancellable = sinkChain(root, into: received)
            let leaf = root.a.b
            forEachNewValue(iterations) { leaf.c = $0 }
            withExtendedLifetime(cancellable) { received.expect(1 + iterations) }
        },
    ]
}

/// `\.a.b.c`: `b` is replaced, alternately by two leaves whose `c` are 1 and 2, so every replacement
/// moves the observation to another object and changes the observed value.
private func notifyChainReplace() -> [Scenario] {
    [
        Scenario("notify_chain_replace.ours") { iterations in
            let root = Root()
            let received = Received()
            let watcher = observing(root, into: received)
            let middle = root.a
            let leaves = [Leaf(), Leaf()]
            leaves[0].c = 1
            leaves[1].c = 2
            forEachNewValue(iterations) { middle.b = leaves[$0 & 1] }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
        Scenario("notify_chain_replace.observation") { iterations in
            let root = ObservationRoot()
            let relay = ObservationRelay { root.a.b.c }
            relay.track()
            let middle = root.a
            let leaves = [ObservationLeaf(), ObservationLeaf()]
            leaves[0].c = 1
            leaves[1].c = 2
            forEachNewValue(iterations) { middle.b = leaves[$0 & 1] }
            relay.tracked.expect(1 + iterations)
        },
        Scenario("notify_chain_replace.opencombine") { iterations in
            let root = CombineRoot()
            let received = Received()
            let cancellable = sinkChain(root, into: received)
            let middle = root.a
            let leaves = [CombineLeaf(), CombineLeaf()]
            leaves[0].c = 1
            leaves[1].c = 2
            forEachNewValue(iterations) { middle.b = leaves[$0 & 1] }
            withExtendedLifetime(cancellable) { received.expect(1 + iterations) }
        },
    ]
}

/// `sum` reads two observable properties; `first` changes.
private func notifyComputed() -> [Scenario] {
    [
        Scenario("notify_computed.ours") { iterations in
            let model = Sum()
            let received = Received()
            let watcher = Watcher()
            watcher.kvoController.observe(model, keyPath: \.sum, options: [.new, .old]) { _, _, change in
                received.record(change.newValue)
            }
            forEachNewValue(iterations) { model.first = $0 }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
        Scenario("notify_computed.observation") { iterations in
            let model = ObservationSum()
            let relay = ObservationRelay { model.sum }
            relay.track()
            forEachNewValue(iterations) { model.first = $0 }
            relay.tracked.expect(1 + iterations)
        },
        Scenario("notify_computed.opencombine") { iterations in
            // Each sink gets its own new value and reads the other input from the model; each
            // receives the current value when it subscribes.
            let model = CombineSum()
            let received = Received()
            let first = model.$first.sink { [unowned model] first in received.record(first + model.last) }
            let last = model.$last.sink { [unowned model] last in received.record(model.first + last) }
            forEachNewValue(iterations) { model.first = $0 }
            withExtendedLifetime((first, last)) { received.expect(2 + iterations) }
        },
    ]
}

// MARK: - Helpers

/// A watcher whose controller observes `\.a.b.c` of `root` with [.new, .old].
private func observing(_ root: Root, into received: Received) -> Watcher {
    let watcher = Watcher()
    watcher.kvoController.observe(root, keyPath: \.a.b.c, options: [.new, .old]) { _, _, change in
        received.record(change.newValue)
    }
    return watcher
}

/// OpenCombine's `\.a.b.c`: one `map` + `switchToLatest` per link.
func sinkChain(_ root: CombineRoot, into received: Received) -> AnyCancellable {
    root.$a
        .map { $0.$b }
        .switchToLatest()
        .map { $0.$c }
        .switchToLatest()
        .sink { received.record($0) }
}

@inline(never)
private func set(_ model: Counter, _ value: Int) {
    model.x = value
}

@inline(never)
private func set(_ model: ObservationCounter, _ value: Int) {
    model.x = value
}

@inline(never)
private func set(_ model: CombineCounter, _ value: Int) {
    model.x = value
}

@inline(never)
private func set(_ model: PlainCounter, _ value: Int) {
    model.x = value
}
