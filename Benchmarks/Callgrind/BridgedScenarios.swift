import KVOMediator
import Observation

// A KeyValueObservable class bridged to Observation (`BridgedCounter`), beside Observation's own
// `@Observable` class, in the observation column:
// - set_unobserved_bridged: one set with nobody observing, once a read has made the object's
//   ObservationRegistrar (as an `@Observable` object has from the start), so each set tells it;
// - set_unobserved_bridged_unread: the same before any read: the registrar is not made yet;
// - notify_1_bridged: one change delivered to `withObservationTracking` whose onChange registers again
//   (`ObservationRelay`, as SwiftUI tracks a view's body);
// - notify_1_bridged_controller: notify_1.ours (a KVOController block with [.new, .old]) on the bridged
//   class, whose registrar a read has made: a change is told to both worlds.

func bridgedScenarios() -> [Scenario] {
    [
        Scenario("set_unobserved_bridged.ours") { iterations in
            let model = BridgedCounter()
            blackHole(model.x)
            forEachNewValue(iterations) { set(model, $0) }
        },
        Scenario("set_unobserved_bridged.observation") { iterations in
            let model = ObservationCounter()
            forEachNewValue(iterations) { set(model, $0) }
        },
        Scenario("set_unobserved_bridged_unread.ours") { iterations in
            let model = BridgedCounter()
            forEachNewValue(iterations) { set(model, $0) }
        },
        Scenario("notify_1_bridged.ours") { iterations in
            let model = BridgedCounter()
            let relay = ObservationRelay { model.x }
            relay.track()
            forEachNewValue(iterations) { model.x = $0 }
            relay.tracked.expect(1 + iterations)
        },
        Scenario("notify_1_bridged.observation") { iterations in
            let model = ObservationCounter()
            let relay = ObservationRelay { model.x }
            relay.track()
            forEachNewValue(iterations) { model.x = $0 }
            relay.tracked.expect(1 + iterations)
        },
        Scenario("notify_1_bridged_controller.ours") { iterations in
            let model = BridgedCounter()
            blackHole(model.x)
            let received = Received()
            let watcher = Watcher()
            watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                received.record(change.newValue)
            }
            forEachNewValue(iterations) { model.x = $0 }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
    ]
}

@inline(never)
private func set(_ model: BridgedCounter, _ value: Int) {
    model.x = value
}

@inline(never)
private func set(_ model: ObservationCounter, _ value: Int) {
    model.x = value
}
