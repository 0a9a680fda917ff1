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
//   at once; OpenCombine's sink, which also delivers the current value, beside it.

func shapeScenarios() -> [Scenario] {
    arrayAppends() + teardownOrders() + observeUnobserveForms()
}

/// `\T.x`, made at run time: a key path object of its own, equal to the literal `\Counter.x`.
@inline(never)
@_optimize(none)
private func runtimeKeyPathX<T: Counter>(_: T.Type) -> KeyPath<T, Int> {
    \T.x
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
            let received = Received()
            let tokens = (0..<registrations).map { _ in
                try! model.observe(\.x, options: [.new]) { _, change in received.record(change.newValue) }
            }
            for index in 0..<iterations {
                tokens[oldestFirst ? index : registrations - 1 - index].invalidate()
            }
            model.x = 1
            received.expect(registrations - iterations)
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
