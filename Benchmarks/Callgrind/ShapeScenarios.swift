import KVOMediator
import Observation
import OpenCombine

// The shapes people use KVO for, beyond one property:
// - array_append_observed_1k / _10k: one element appended through `mutableArrayValue(for:)` (a proxy
//   made once, as Cocoa code keeps one) to an array that starts with 1,000 / 10,000 elements, one
//   observer (a block with [.new, .old]); peers append to their own observed array: Observation's
//   `items.append` (its `_modify`, in place), OpenCombine's `@Published` (get, append, set);
// - array_append_unobserved_10k: the same append with nobody observing; the plain row appends to a
//   stored array;
// - teardown_fifo_1e5 / teardown_lifo_1e5: 100,000 tokens observe one counter's `x`; an operation
//   invalidates one, oldest first / newest first. (The tokens left are kept to the end of the process,
//   so that their teardown, which differs between the two counts, is not in the difference.)
// - observe_unobserve_equal_literal: observe_unobserve where `unobserve` is given an equal key path
//   that is another object (which object a literal becomes is the compiler's choice; this one is made
//   at run time, once);
// - observe_unobserve_initial: observe_unobserve with `.initial`, whose block gets the current value
//   at once; OpenCombine's sink, which also delivers the current value, beside it;
// - array_insert_remove_chain: through `\.owner.items`, an element inserted at 0, then removed at 0
//   (an operation is one of the two); plain: the same on a plain array of 1,000 (the floor: each moves
//   the other elements);
// - notify_fanout_10: 10 controllers observe one property; an operation is one callback (a change
//   makes 10); array_append_fanout_10: the same for an append through the proxy to a list of ~1,000;
// - notify_string_key: notify_1 observed through the string key path "x" (its values `Any`, which the
//   callback casts); notify_string_key_typed: the same observed `as: Int.self`;
// - set_by_name_unobserved / _observed: `setValue(_:atKeyPath: "x")` of an `Int` (the form for a value
//   of a static type), nobody observing / notify_1's observer; set_by_name_boxed_unobserved: the same
//   value passed as `Any?` (Cocoa's form), nobody observing;
// - notify_declared: a cache-backed `doubled` whose dependency on `x` is declared, observed; its
//   tracked equivalent (computed from `x`) beside it, and OpenCombine's `$x.map { $0 * 2 }.sink`;
// - notify_chain5_replace_first: `\.a.b.c.d.e` observed, its first link replaced (two whole chains
//   alternate).

func shapeScenarios() -> [Scenario] {
    arrayAppends() + teardownOrders() + observeUnobserveForms() + chainedArray() + fanOut() + byName()
        + declared() + chain5()
}

private func chainedArray() -> [Scenario] {
    [
        Scenario("array_insert_remove_chain.ours") { iterations in
            let owner = ListOwner()
            owner.owner.items = Array(0..<1_000)
            let received = Received()
            let watcher = Watcher()
            watcher.kvoController.observe(owner, keyPath: \.owner.items, options: [.new, .old]) { _, _, change in
                received.record(change.indexes?.first)
            }
            let proxy = owner.owner.mutableArrayValue(for: \.items)
            forEachNewValue(iterations) { value in
                if value & 1 == 1 { proxy.insert(value, at: 0) } else { proxy.remove(at: 0) }
            }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
        // The floor: the same insertions and removals at 0 of a plain array of 1,000, which move the
        // elements after index 0 as the proxy's do.
        Scenario("array_insert_remove_chain.plain") { iterations in
            let model = filledList(PlainList(), 1_000) { $0.items = $1 }
            forEachNewValue(iterations) { value in
                if value & 1 == 1 { insert(value, atStartOf: model) } else { removeFirst(of: model) }
            }
            blackHole(model.items.count)
        },
    ]
}

@inline(never)
private func insert(_ value: Int, atStartOf list: PlainList) {
    list.items.insert(value, at: 0)
}

@inline(never)
private func removeFirst(of list: PlainList) {
    list.items.remove(at: 0)
}

private func fanOut() -> [Scenario] {
    [
        Scenario("notify_fanout_10.ours") { iterations in
            let observers = 10
            let model = Counter()
            let received = Received()
            let watchers = (0..<observers).map { _ in Watcher() }
            for watcher in watchers {
                watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                    received.record(change.newValue)
                }
            }
            forEachNewValue(iterations / observers) { model.x = $0 }
            withExtendedLifetime(watchers) { received.expect(iterations / observers * observers) }
        },
        Scenario("array_append_fanout_10.ours") { iterations in
            let observers = 10
            let model = filledList(List(), 1_000) { $0.items = $1 }
            let received = Received()
            let watchers = (0..<observers).map { _ in Watcher() }
            for watcher in watchers {
                watcher.kvoController.observe(model, keyPath: \.items, options: [.new, .old]) { _, _, change in
                    received.record(change.newValue?.first)
                }
            }
            let proxy = model.mutableArrayValue(for: \.items)
            forEachNewValue(iterations / observers) { append($0, through: proxy) }
            withExtendedLifetime(watchers) { received.expect(iterations / observers * observers) }
        },
    ]
}

@inline(never)
private func setByName(_ model: Counter, _ value: Int) {
    try! model.setValue(value, atKeyPath: "x")
}

@inline(never)
private func setByNameBoxed(_ model: Counter, _ value: Int) {
    try! model.setValue(value as Any?, atKeyPath: "x")
}

private func byName() -> [Scenario] {
    [
        Scenario("notify_string_key.ours") { iterations in
            let model = Counter()
            let received = Received()
            let watcher = Watcher()
            try! watcher.kvoController.observe(model, keyPath: "x", options: [.new, .old]) { _, _, change in
                received.record(change.newValue as? Int)
            }
            forEachNewValue(iterations) { model.x = $0 }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
        Scenario("notify_string_key_typed.ours") { iterations in
            let model = Counter()
            let received = Received()
            let watcher = Watcher()
            try! watcher.kvoController.observe(model, keyPath: "x", as: Int.self, options: [.new, .old]) { _, _, change in
                received.record(change.newValue)
            }
            forEachNewValue(iterations) { model.x = $0 }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
        Scenario("set_by_name_unobserved.ours") { iterations in
            let model = Counter()
            forEachNewValue(iterations) { setByName(model, $0) }
            blackHole(model.x)
        },
        Scenario("set_by_name_boxed_unobserved.ours") { iterations in
            let model = Counter()
            forEachNewValue(iterations) { setByNameBoxed(model, $0) }
            blackHole(model.x)
        },
        Scenario("set_by_name_observed.ours") { iterations in
            let model = Counter()
            let received = Received()
            let watcher = Watcher()
            watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                received.record(change.newValue)
            }
            forEachNewValue(iterations) { setByName(model, $0) }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
    ]
}

private func declared() -> [Scenario] {
    [
        Scenario("notify_declared.ours") { iterations in
            let model = DeclaredDoubler()
            let received = Received()
            let watcher = Watcher()
            watcher.kvoController.observe(model, keyPath: \.doubled, options: [.new, .old]) { _, _, change in
                received.record(change.newValue)
            }
            forEachNewValue(iterations) { model.x = $0 }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
        Scenario("notify_declared.tracked") { iterations in
            let model = TrackedDoubler()
            let received = Received()
            let watcher = Watcher()
            watcher.kvoController.observe(model, keyPath: \.doubled, options: [.new, .old]) { _, _, change in
                received.record(change.newValue)
            }
            forEachNewValue(iterations) { model.x = $0 }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
        Scenario("notify_declared.opencombine") { iterations in
            let model = CombineDoubler()
            let received = Received()
            let cancellable = model.$x.map { $0 * 2 }.sink { received.record($0) }
            forEachNewValue(iterations) { model.x = $0 }
            withExtendedLifetime(cancellable) { received.expect(1 + iterations) }
        },
    ]
}

private func chain5() -> [Scenario] {
    [
        Scenario("notify_chain5_replace_first.ours") { iterations in
            let root = Link1()
            let received = Received()
            let watcher = Watcher()
            watcher.kvoController.observe(root, keyPath: \.a.b.c.d.e, options: [.new, .old]) { _, _, change in
                received.record(change.newValue)
            }
            let firsts = [Link2(), Link2()]
            firsts[0].b.c.d.e = 1
            firsts[1].b.c.d.e = 2
            forEachNewValue(iterations) { root.a = firsts[$0 & 1] }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
        Scenario("notify_chain5_replace_first.observation") { iterations in
            let root = ObservationLink1()
            let relay = ObservationRelay { root.a.b.c.d.e }
            relay.track()
            let firsts = [ObservationLink2(), ObservationLink2()]
            firsts[0].b.c.d.e = 1
            firsts[1].b.c.d.e = 2
            forEachNewValue(iterations) { root.a = firsts[$0 & 1] }
            relay.tracked.expect(1 + iterations)
        },
    ]
}

private func observeUnobserveForms() -> [Scenario] {
    [
        Scenario("observe_unobserve_equal_literal.ours") { iterations in
            let model = Counter()
            let watcher = Watcher()
            let controller = watcher.kvoController
            let other = runtimeKeyPathX(Counter.self)
            precondition(other == \Counter.x && other !== \Counter.x)
            for _ in 0..<iterations {
                controller.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                    blackHole(change.newValue)
                }
                controller.unobserve(model, keyPath: other)
            }
        },
        Scenario("observe_unobserve_initial.ours") { iterations in
            let model = Counter()
            let received = Received()
            let watcher = Watcher()
            let controller = watcher.kvoController
            for _ in 0..<iterations {
                controller.observe(model, keyPath: \.x, options: [.initial, .new, .old]) { _, _, change in
                    received.record(change.newValue)
                }
                controller.unobserve(model, keyPath: \.x)
            }
            received.expect(iterations)
        },
        Scenario("observe_unobserve_initial.opencombine") { iterations in
            let model = CombineCounter()
            let received = Received()
            for _ in 0..<iterations {
                let cancellable = model.$x.sink { received.record($0) }
                cancellable.cancel()
            }
            received.expect(iterations)
        },
    ]
}

/// Keeps `value` alive to the end of the process.
private func keepToTheEnd(_ value: some Any) {
    _ = Unmanaged.passRetained(Box(value))
}

private final class Box<Value> {
    let value: Value
    init(_ value: Value) { self.value = value }
}

private func teardownOrders() -> [Scenario] {
    let registrations = 100_000
    func scenario(_ name: String, oldestFirst: Bool) -> Scenario {
        Scenario(name) { iterations in
            precondition(iterations <= registrations)
            let model = Counter()
            let tokens = (0..<registrations).map { _ in
                try! model.observe(\.x, options: [.new]) { _, change in blackHole(change.newValue) }
            }
            for index in 0..<iterations {
                tokens[oldestFirst ? index : registrations - 1 - index].invalidate()
            }
            // (No change is delivered to check: the callbacks of the ones left, fewer at the higher count,
            // would be subtracted from the cost measured.)
            if iterations > 0 {
                let ended = oldestFirst ? [0, iterations - 1] : [registrations - 1, registrations - iterations]
                precondition(ended.allSatisfy { !tokens[$0].isValid })
                precondition(tokens[oldestFirst ? registrations - 1 : 0].isValid)
            }
            keepToTheEnd((model, tokens))
        }
    }
    return [
        scenario("teardown_fifo_1e5.ours", oldestFirst: true),
        scenario("teardown_lifo_1e5.ours", oldestFirst: false),
    ]
}

/// A list of `count` elements.
private func filledList<Model>(_ model: Model, _ count: Int, _ fill: (Model, [Int]) -> Void) -> Model {
    fill(model, Array(0..<count))
    return model
}

@inline(never)
private func append(_ value: Int, to list: PlainList) {
    list.items.append(value)
}

@inline(never)
private func append(_ value: Int, through proxy: KVOMutableArray<List, Int>) {
    proxy.append(value)
}

private func arrayAppends() -> [Scenario] {
    var scenarios: [Scenario] = []
    for (suffix, count) in [("1k", 1_000), ("10k", 10_000)] {
        scenarios += [
            Scenario("array_append_observed_\(suffix).ours") { iterations in
                let model = filledList(List(), count) { $0.items = $1 }
                let received = Received()
                let watcher = Watcher()
                watcher.kvoController.observe(model, keyPath: \.items, options: [.new, .old]) { _, _, change in
                    received.record(change.newValue?.first)
                }
                let proxy = model.mutableArrayValue(for: \.items)
                forEachNewValue(iterations) { append($0, through: proxy) }
                withExtendedLifetime(watcher) { received.expect(iterations) }
            },
            Scenario("array_append_observed_\(suffix).observation") { iterations in
                let model = filledList(ObservationList(), count) { $0.items = $1 }
                let relay = ObservationRelay { model.items.count }
                relay.track()
                forEachNewValue(iterations) { model.items.append($0) }
                relay.tracked.expect(1 + iterations)
            },
            Scenario("array_append_observed_\(suffix).opencombine") { iterations in
                let model = filledList(CombineList(), count) { $0.items = $1 }
                let received = Received()
                let cancellable = model.$items.sink { received.record($0.last) }
                forEachNewValue(iterations) { model.items.append($0) }
                withExtendedLifetime(cancellable) { received.expect(1 + iterations) }
            },
        ]
    }
    scenarios += [
        Scenario("array_append_unobserved_10k.ours") { iterations in
            let model = filledList(List(), 10_000) { $0.items = $1 }
            let proxy = model.mutableArrayValue(for: \.items)
            forEachNewValue(iterations) { append($0, through: proxy) }
            blackHole(model.items.count)
        },
        Scenario("array_append_unobserved_10k.plain") { iterations in
            let model = filledList(PlainList(), 10_000) { $0.items = $1 }
            forEachNewValue(iterations) { append($0, to: model) }
            blackHole(model.items.count)
        },
    ]
    return scenarios
}
