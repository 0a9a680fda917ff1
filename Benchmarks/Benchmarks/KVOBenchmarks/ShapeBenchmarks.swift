import Benchmark
import KVOMediator
import Observation
import OpenCombine

// The shapes people use KVO for, beyond one property (the callgrind scenarios of the same names are in
// Callgrind/ShapeScenarios.swift, which says what each measures):
// - array_append_observed_1k / _10k, array_append_unobserved_10k: appends through a kept
//   `mutableArrayValue(for:)` proxy (peers: Observation's and OpenCombine's own observed arrays; a
//   plain stored array);
// - array_insert_remove_chain: an insert at 0 or a remove at 0 through `\.owner.items`; plainStored: the same
//   on a plain array of 1,000 (the floor);
// - notify_string_key, notify_string_key_typed (observed `as: Int.self`), set_by_name_unobserved,
//   set_by_name_observed: string key paths (the sets in the form for a value of a static type;
//   set_by_name_boxed_unobserved in Cocoa's, the value as `Any?`);
// - notify_declared: a cache-backed property with a declared dependency (tracked: the same property
//   computed and tracked; OpenCombine: `$x.map { $0 * 2 }.sink`);
// - notify_chain5_replace_first: `\.a.b.c.d.e`, its first link replaced;
// - observe_unobserve_equal_literal, observe_unobserve_initial: observe_unobserve with an equal key
//   path object of its own for `unobserve`, and with `.initial` (OpenCombine's sink delivers the
//   current value too);
// - teardown_fifo_1e5 / teardown_lifo_1e5: ending one of 100,000 tokens on one property, oldest first
//   / newest first.

private let operationCount = 1_000

func registerShapeBenchmarks() {
    registerArrayAppends()
    registerByName()
    registerDeclared()
    registerChain5()
    registerObserveUnobserveForms()
    registerTeardownOrders()
}

// MARK: - Arrays

private func registerArrayAppends() {
    for (suffix, count) in [("1k", 1_000), ("10k", 10_000)] {
        let metric = "array_append_observed_\(suffix)"
        // Each iteration appends 1,000 elements and removes them unmeasured: the array keeps its size.
        register(metric, "ours", operations: operationCount, setup: observedList(count)) { benchmark, fixture in
            let proxy = fixture.retained[1] as! KVOMutableArray<List, Int>
            for value in 0..<operationCount { proxy.append(value) }
            benchmark.stopMeasurement()
            fixture.model.items.removeLast(operationCount)
        }
        register(metric, "Observation", operations: operationCount, setup: trackedObservationList(count)) {
            benchmark,
            fixture in
            for value in 0..<operationCount { fixture.model.items.append(value) }
            benchmark.stopMeasurement()
            fixture.model.items.removeLast(operationCount)
        }
        register(metric, "OpenCombine", operations: operationCount, setup: sunkCombineList(count)) {
            benchmark,
            fixture in
            for value in 0..<operationCount { fixture.model.items.append(value) }
            benchmark.stopMeasurement()
            fixture.model.items.removeLast(operationCount)
        }
    }
    let unobserved = "array_append_unobserved_10k"
    register(unobserved, "ours", operations: operationCount, setup: unobservedList()) { benchmark, fixture in
        let proxy = fixture.retained[0] as! KVOMutableArray<List, Int>
        for value in 0..<operationCount { proxy.append(value) }
        benchmark.stopMeasurement()
        fixture.model.items.removeLast(operationCount)
    }
    register(unobserved, "plainStored", operations: operationCount, setup: Fixture(plainList())) {
        benchmark,
        fixture in
        for value in 0..<operationCount { fixture.model.items.append(value) }
        benchmark.stopMeasurement()
        fixture.model.items.removeLast(operationCount)
    }
    register("array_insert_remove_chain", "ours", operations: operationCount, setup: observedListOwner()) {
        _,
        fixture in
        let proxy = fixture.retained[1] as! KVOMutableArray<List, Int>
        for value in 0..<operationCount {
            if value & 1 == 0 { proxy.insert(value, at: 0) } else { proxy.remove(at: 0) }
        }
    }
    // The floor: the same on a plain array of 1,000 (each insertion and removal at 0 moves the others).
    register("array_insert_remove_chain", "plainStored", operations: operationCount, setup: Fixture(plainList(1_000))) {
        _,
        fixture in
        for value in 0..<operationCount {
            if value & 1 == 0 { fixture.model.items.insert(value, at: 0) } else { fixture.model.items.remove(at: 0) }
        }
    }
}

private func observedList(_ count: Int) -> Fixture<List> {
    let model = List()
    model.items = Array(0..<count)
    let watcher = Watcher()
    watcher.kvoController.observe(model, keyPath: \.items, options: [.new, .old]) { _, _, change in
        blackHole(change.newValue)
    }
    return Fixture(model, retaining: [watcher, model.mutableArrayValue(for: \.items)])
}

private func unobservedList() -> Fixture<List> {
    let model = List()
    model.items = Array(0..<10_000)
    return Fixture(model, retaining: [model.mutableArrayValue(for: \.items)])
}

private func plainList(_ count: Int = 10_000) -> PlainList {
    let model = PlainList()
    model.items = Array(0..<count)
    return model
}

private func trackedObservationList(_ count: Int) -> Fixture<ObservationList> {
    let model = ObservationList()
    model.items = Array(0..<count)
    let relay = ObservationRelay { model.items.count }
    relay.track()
    return Fixture(model, retaining: [relay])
}

private func sunkCombineList(_ count: Int) -> Fixture<CombineList> {
    let model = CombineList()
    model.items = Array(0..<count)
    let cancellable = model.$items.sink { blackHole($0.count) }
    return Fixture(model, retaining: [cancellable])
}

private func observedListOwner() -> Fixture<ListOwner> {
    let owner = ListOwner()
    owner.owner.items = Array(0..<1_000)
    let watcher = Watcher()
    watcher.kvoController.observe(owner, keyPath: \.owner.items, options: [.new, .old]) { _, _, change in
        blackHole(change.indexes)
    }
    return Fixture(owner, retaining: [watcher, owner.owner.mutableArrayValue(for: \.items)])
}

// MARK: - String key paths

private func registerByName() {
    register("notify_string_key", "ours", operations: operationCount, setup: observedByName()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<operationCount {
            value &+= 1
            fixture.model.x = value
        }
        fixture.counter = value
    }
    register("notify_string_key_typed", "ours", operations: operationCount, setup: observedByName(typed: true)) {
        _,
        fixture in
        var value = fixture.counter
        for _ in 0..<operationCount {
            value &+= 1
            fixture.model.x = value
        }
        fixture.counter = value
    }
    register("set_by_name_unobserved", "ours", operations: operationCount, setup: Fixture(Counter())) { _, fixture in
        var value = fixture.counter
        for _ in 0..<operationCount {
            value &+= 1
            try! fixture.model.setValue(value, atKeyPath: "x")
        }
        fixture.counter = value
    }
    register("set_by_name_boxed_unobserved", "ours", operations: operationCount, setup: Fixture(Counter())) {
        _,
        fixture in
        var value = fixture.counter
        for _ in 0..<operationCount {
            value &+= 1
            try! fixture.model.setValue(value as Any?, atKeyPath: "x")
        }
        fixture.counter = value
    }
    register("set_by_name_observed", "ours", operations: operationCount, setup: observedTyped()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<operationCount {
            value &+= 1
            try! fixture.model.setValue(value, atKeyPath: "x")
        }
        fixture.counter = value
    }
}

/// A counter whose `x` one controller observes by name: its values as `Any`, or `as: Int.self` (`typed`).
private func observedByName(typed: Bool = false) -> Fixture<Counter> {
    let model = Counter()
    let watcher = Watcher()
    if typed {
        try! watcher.kvoController.observe(model, keyPath: "x", as: Int.self, options: [.new, .old]) { _, _, change in
            blackHole(change.newValue)
        }
    } else {
        try! watcher.kvoController.observe(model, keyPath: "x", options: [.new, .old]) { _, _, change in
            blackHole(change.newValue)
        }
    }
    return Fixture(model, retaining: [watcher])
}

private func observedTyped() -> Fixture<Counter> {
    let model = Counter()
    let watcher = Watcher()
    watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
        blackHole(change.newValue)
    }
    return Fixture(model, retaining: [watcher])
}

// MARK: - Declared dependencies

private func registerDeclared() {
    let metric = "notify_declared"
    register(metric, "ours", operations: operationCount, setup: observedDoubled(DeclaredDoubler())) { _, fixture in
        var value = fixture.counter
        for _ in 0..<operationCount {
            value &+= 1
            fixture.model.x = value
        }
        fixture.counter = value
    }
    register(metric, "tracked", operations: operationCount, setup: observedDoubled(TrackedDoubler())) { _, fixture in
        var value = fixture.counter
        for _ in 0..<operationCount {
            value &+= 1
            fixture.model.x = value
        }
        fixture.counter = value
    }
    register(metric, "OpenCombine", operations: operationCount, setup: mappedCombineDoubler()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<operationCount {
            value &+= 1
            fixture.model.x = value
        }
        fixture.counter = value
    }
}

private func observedDoubled(_ model: DeclaredDoubler) -> Fixture<DeclaredDoubler> {
    let watcher = Watcher()
    watcher.kvoController.observe(model, keyPath: \.doubled, options: [.new, .old]) { _, _, change in
        blackHole(change.newValue)
    }
    return Fixture(model, retaining: [watcher])
}

private func observedDoubled(_ model: TrackedDoubler) -> Fixture<TrackedDoubler> {
    let watcher = Watcher()
    watcher.kvoController.observe(model, keyPath: \.doubled, options: [.new, .old]) { _, _, change in
        blackHole(change.newValue)
    }
    return Fixture(model, retaining: [watcher])
}

private func mappedCombineDoubler() -> Fixture<CombineDoubler> {
    let model = CombineDoubler()
    let cancellable = model.$x.map { $0 * 2 }.sink { blackHole($0) }
    return Fixture(model, retaining: [cancellable])
}

// MARK: - A chain of five

private func registerChain5() {
    let metric = "notify_chain5_replace_first"
    register(metric, "ours", operations: operationCount, setup: observedChain5()) { _, fixture in
        let firsts = fixture.retained[1] as! [Link2]
        for index in 0..<operationCount { fixture.model.a = firsts[index & 1] }
    }
    register(metric, "Observation", operations: operationCount, setup: trackedObservationChain5()) { _, fixture in
        let firsts = fixture.retained[1] as! [ObservationLink2]
        for index in 0..<operationCount { fixture.model.a = firsts[index & 1] }
    }
}

private func observedChain5() -> Fixture<Link1> {
    let root = Link1()
    let watcher = Watcher()
    watcher.kvoController.observe(root, keyPath: \.a.b.c.d.e, options: [.new, .old]) { _, _, change in
        blackHole(change.newValue)
    }
    let firsts = [Link2(), Link2()]
    firsts[0].b.c.d.e = 1
    firsts[1].b.c.d.e = 2
    return Fixture(root, retaining: [watcher, firsts])
}

private func trackedObservationChain5() -> Fixture<ObservationLink1> {
    let root = ObservationLink1()
    let relay = ObservationRelay { root.a.b.c.d.e }
    relay.track()
    let firsts = [ObservationLink2(), ObservationLink2()]
    firsts[0].b.c.d.e = 1
    firsts[1].b.c.d.e = 2
    return Fixture(root, retaining: [relay, firsts])
}

// MARK: - Observe and unobserve

private func registerObserveUnobserveForms() {
    register("observe_unobserve_equal_literal", "ours", operations: operationCount, setup: watchedCounterForms()) {
        _,
        fixture in
        let controller = (fixture.retained[0] as! Watcher).kvoController
        let other = fixture.retained[1] as! KeyPath<Counter, Int>
        for _ in 0..<operationCount {
            controller.observe(fixture.model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                blackHole(change.newValue)
            }
            controller.unobserve(fixture.model, keyPath: other)
        }
    }
    let initial = "observe_unobserve_initial"
    register(initial, "ours", operations: operationCount, setup: watchedCounterForms()) { _, fixture in
        let controller = (fixture.retained[0] as! Watcher).kvoController
        for _ in 0..<operationCount {
            controller.observe(fixture.model, keyPath: \.x, options: [.initial, .new, .old]) { _, _, change in
                blackHole(change.newValue)
            }
            controller.unobserve(fixture.model, keyPath: \.x)
        }
    }
    register(initial, "OpenCombine", operations: operationCount, setup: Fixture(CombineCounter())) { _, fixture in
        for _ in 0..<operationCount {
            let cancellable = fixture.model.$x.sink { blackHole($0) }
            cancellable.cancel()
        }
    }
}

private func watchedCounterForms() -> Fixture<Counter> {
    Fixture(Counter(), retaining: [Watcher(), runtimeKeyPathX(Counter.self)])
}

// MARK: - Ending registrations in either order

private func registerTeardownOrders() {
    let registrations = 100_000
    for (metric, oldestFirst) in [("teardown_fifo_1e5", true), ("teardown_lifo_1e5", false)] {
        let teardownConfiguration = configuration(warmupIterations: 1, maxDuration: .seconds(30), maxIterations: 10)
        register(
            metric,
            "ours",
            operations: registrations,
            configuration: teardownConfiguration,
            setup: Fixture(Counter())
        ) { benchmark, fixture in
            let tokens = (0..<registrations).map { _ in
                try! fixture.model.observe(\.x, options: [.new]) { _, change in blackHole(change.newValue) }
            }
            benchmark.startMeasurement()
            if oldestFirst {
                for token in tokens { token.invalidate() }
            } else {
                for token in tokens.reversed() { token.invalidate() }
            }
            benchmark.stopMeasurement()
            blackHole(tokens)
        }
    }
}
