import KVOMediator

// What a notification or a registration costs beside everything else registered, the benchmark
// suite's scenarios of the same names (ours only: each is compared with ours elsewhere):
// - notify_1_crowded: notify_1 while one other controller observes 100,000 other objects;
// - notify_1_crowded_same_object: notify_1 on `Wide`'s `p1000` while 100,000 registrations exist
//   on its other properties (100 on each of `p0` … `p999`, one controller each), registered first;
// - notify_slots_100: `Wide`'s `p0` … `p99` observed once each by one controller, `p99` changes;
// - observe_unobserve_k1 / _k1000: a controller observing K of `Wide`'s properties observes and
//   unobserves `p1000`;
// - observe_unobserve_m1 / _m10000: M controllers observe a counter's `x`; one more observes and
//   unobserves it.

private let crowdSize = 100_000

func crowdScenarios() -> [Scenario] {
    notifyAmongOthers() + observeUnobserveAmongOthers()
}

private func notifyAmongOthers() -> [Scenario] {
    [
        Scenario("notify_1_crowded.ours") { iterations in
            let others = (0..<crowdSize).map { _ in Counter() }
            let crowd = Watcher()
            for other in others {
                crowd.kvoController.observe(other, keyPath: \.x, options: [.new, .old]) { _, _, change in
                    blackHole(change.newValue)
                }
            }
            let model = Counter()
            let received = Received()
            let watcher = Watcher()
            watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                received.record(change.newValue)
            }
            forEachNewValue(iterations) { model.x = $0 }
            withExtendedLifetime((watcher, crowd, others)) { received.expect(iterations) }
        },
        Scenario("notify_1_crowded_same_object.ours") { iterations in
            let model = Wide()
            let others = Wide.keyPaths.dropLast()
            let crowd = (0..<crowdSize).map { _ in Watcher() }
            let crowdReceived = Received()
            for (index, watcher) in crowd.enumerated() {
                watcher.kvoController.observe(model, keyPath: others[index % others.count], options: [.new, .old]) {
                    _,
                    _,
                    change in
                    crowdReceived.record(change.newValue)
                }
            }
            // Every registration of the crowd is in place: one change of each other property reaches all.
            for keyPath in others { model[keyPath: keyPath] = 1 }
            crowdReceived.expect(crowdSize)
            let received = Received()
            let watcher = Watcher()
            watcher.kvoController.observe(model, keyPath: \.p1000, options: [.new, .old]) { _, _, change in
                received.record(change.newValue)
            }
            forEachNewValue(iterations) { model.p1000 = $0 }
            withExtendedLifetime((watcher, crowd)) { received.expect(iterations) }
        },
        Scenario("notify_slots_100.ours") { iterations in
            let model = Wide()
            let received = Received()
            let watcher = Watcher()
            for keyPath in Wide.keyPaths.prefix(100) {
                watcher.kvoController.observe(model, keyPath: keyPath, options: [.new, .old]) { _, _, change in
                    received.record(change.newValue)
                }
            }
            forEachNewValue(iterations) { model.p99 = $0 }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
    ]
}

/// Run at a tenth of callgrind.sh's counts: before the engine hashes key paths, one operation of k1000
/// compares a thousand of them (about a million instructions).
private func observeUnobserveAmongOthers() -> [Scenario] {
    let amongKeyPaths = [1, 1_000].map { observed in
        Scenario("observe_unobserve_k\(observed).ours", divisor: 10) { iterations in
            let model = Wide()
            let watcher = Watcher()
            let controller = watcher.kvoController
            let received = Received()
            for keyPath in Wide.keyPaths.prefix(observed) {
                controller.observe(model, keyPath: keyPath, options: [.new, .old]) { _, _, change in
                    received.record(change.newValue)
                }
            }
            // Every one of the K registrations is in place.
            for keyPath in Wide.keyPaths.prefix(observed) { model[keyPath: keyPath] = 1 }
            received.expect(observed)
            for _ in 0..<iterations {
                controller.observe(model, keyPath: \.p1000, options: [.new, .old]) { _, _, change in
                    blackHole(change.newValue)
                }
                controller.unobserve(model, keyPath: \.p1000)
            }
            expectObserveAndUnobserve(model, \.p1000, through: controller)
        }
    }
    let amongControllers = [1, 10_000].map { others in
        Scenario("observe_unobserve_m\(others).ours", divisor: 10) { iterations in
            let model = Counter()
            let watchers = (0..<others).map { _ in Watcher() }
            let received = Received()
            for watcher in watchers {
                watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                    received.record(change.newValue)
                }
            }
            // Every one of the M registrations is in place.
            model.x = -1
            received.expect(others)
            let watcher = Watcher()
            let controller = watcher.kvoController
            for _ in 0..<iterations {
                controller.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                    blackHole(change.newValue)
                }
                controller.unobserve(model, keyPath: \.x)
            }
            expectObserveAndUnobserve(model, \.x, through: controller)
            withExtendedLifetime(watchers) {}
        }
    }
    return amongKeyPaths + amongControllers
}

/// Traps unless the loop's observe really registers (one change is delivered) and its unobserve
/// really ends the registration (the next change is not).
private func expectObserveAndUnobserve<Object: KeyValueObservable & Sendable>(
    _ model: Object,
    _ keyPath: ReferenceWritableKeyPath<Object, Int>,
    through controller: KVOController<Watcher>
) {
    let received = Received()
    controller.observe(model, keyPath: keyPath, options: [.new, .old]) { _, _, change in
        received.record(change.newValue)
    }
    model[keyPath: keyPath] = -2
    controller.unobserve(model, keyPath: keyPath)
    model[keyPath: keyPath] = -3
    received.expect(1)
}
