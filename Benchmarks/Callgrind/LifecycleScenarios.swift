import KVOMediator
import Observation
import OpenCombine

// observe_unobserve: one registration made and removed, the benchmark suite's cycles:
// - ours: a controller's `observe` ([.new, .old]) then `unobserve`, same object and key path each time;
//   `_token`: `object.observe` then `invalidate()`;
// - observation has no cancel: one cycle is `withObservationTracking` followed by one set, which
//   fires the onChange (it only counts) and so removes the registration;
// - opencombine: `$x.sink` then `cancel()` (a sink receives the current value on subscription).
// `_chain` is the same for `\.a.b.c` (OpenCombine: the `switchToLatest` chain; Observation: a set of `c`).

func lifecycleScenarios() -> [Scenario] {
    observeUnobserve() + observeUnobserveChain()
}

private func observeUnobserve() -> [Scenario] {
    [
        Scenario("observe_unobserve.ours") { iterations in
            let model = Counter()
            let watcher = Watcher()
            let controller = watcher.kvoController
            for _ in 0..<iterations {
                controller.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                    blackHole(change.newValue)
                }
                controller.unobserve(model, keyPath: \.x)
            }
        },
        Scenario("observe_unobserve.observation") { iterations in
            let model = ObservationCounter()
            let ended = Received()
            forEachNewValue(iterations) { value in
                withObservationTracking {
                    blackHole(model.x)
                } onChange: {
                    ended.record(nil)
                }
                model.x = value
            }
            ended.expect(iterations)
        },
        Scenario("observe_unobserve.opencombine") { iterations in
            let model = CombineCounter()
            let received = Received()
            for _ in 0..<iterations {
                let cancellable = model.$x.sink { received.record($0) }
                cancellable.cancel()
            }
            received.expect(iterations)
        },
        Scenario("observe_unobserve_token.ours") { iterations in
            let model = Counter()
            do {
                for _ in 0..<iterations {
                    let token = try model.observe(\.x, options: [.new, .old]) { _, change in
                        blackHole(change.newValue)
                    }
                    token.invalidate()
                }
            } catch {
                fatalError("observe_unobserve_token.ours: \(error)")
            }
        },
    ]
}

private func observeUnobserveChain() -> [Scenario] {
    [
        Scenario("observe_unobserve_chain.ours") { iterations in
            let root = Root()
            let watcher = Watcher()
            let controller = watcher.kvoController
            for _ in 0..<iterations {
                controller.observe(root, keyPath: \.a.b.c, options: [.new, .old]) { _, _, change in
                    blackHole(change.newValue)
                }
                controller.unobserve(root, keyPath: \.a.b.c)
            }
        },
        Scenario("observe_unobserve_chain.observation") { iterations in
            let root = ObservationRoot()
            let leaf = root.a.b
            let ended = Received()
            forEachNewValue(iterations) { value in
                withObservationTracking {
                    blackHole(root.a.b.c)
                } onChange: {
                    ended.record(nil)
                }
                leaf.c = value
            }
            ended.expect(iterations)
        },
        Scenario("observe_unobserve_chain.opencombine") { iterations in
            let root = CombineRoot()
            let received = Received()
            for _ in 0..<iterations {
                let cancellable = sinkChain(root, into: received)
                cancellable.cancel()
            }
            received.expect(iterations)
        },
    ]
}
