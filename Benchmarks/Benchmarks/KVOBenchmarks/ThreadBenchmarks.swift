import Benchmark
import Foundation
import KVOMediator

// two_threads: two threads each setting its own observed object (one observer each, [.new, .old])
// against one thread making the same sets on the same two objects. run.sh reports the throughput
// ratio, serial time / parallel time (2.0 means perfect scaling).
//
// two_threads_chain: the same, each object being the leaf of a chain `\.a.b.c` that one controller
// observes, its `c` set.
//
// Both variants run their work on freshly started threads and wait for them, so thread start-up
// (tens of microseconds) is in both. Each thread sets its object 400,000 times, about 15 ms of work: at
// 100,000 sets (and 20,000 for chains, whose change once cost 40 times a property's and now costs
// what a property's does) a run lasted 1-3 ms, and one thread starting late on this 2-core machine
// moved the ratio between 1.1 and 1.9 from one run to the next.

private let setsPerObject = 400_000
private let chainSetsPerObject = 400_000

/// Short runs of milliseconds each: a couple of seconds, at most 60 samples.
private func threadConfiguration() -> Benchmark.Configuration {
    configuration(warmupIterations: 2, maxDuration: .seconds(2), maxIterations: 60)
}

func registerThreadBenchmarks() {
    registerTwoThreads()
    registerTwoThreadsChain()
}

private func registerTwoThreads() {
    register(
        "two_threads",
        "parallel",
        operations: 2 * setsPerObject,
        configuration: threadConfiguration(),
        setup: observedPair()
    ) { _, fixture in
        let models = fixture.model
        runOnThreads([{ mutate(models[0]) }, { mutate(models[1]) }])
    }

    register(
        "two_threads",
        "serial",
        operations: 2 * setsPerObject,
        configuration: threadConfiguration(),
        setup: observedPair()
    ) { _, fixture in
        let models = fixture.model
        runOnThreads([
            {
                mutate(models[0])
                mutate(models[1])
            }
        ])
    }
}

private func registerTwoThreadsChain() {
    register(
        "two_threads_chain",
        "parallel",
        operations: 2 * chainSetsPerObject,
        configuration: threadConfiguration(),
        setup: observedChains()
    ) { _, fixture in
        let leaves = fixture.model
        runOnThreads([{ mutate(leaves[0]) }, { mutate(leaves[1]) }])
    }

    register(
        "two_threads_chain",
        "serial",
        operations: 2 * chainSetsPerObject,
        configuration: threadConfiguration(),
        setup: observedChains()
    ) { _, fixture in
        let leaves = fixture.model
        runOnThreads([
            {
                mutate(leaves[0])
                mutate(leaves[1])
            }
        ])
    }
}

/// Two counters, each observed by its own controller.
private func observedPair() -> Fixture<[Counter]> {
    let models = [Counter(), Counter()]
    let watchers = models.map { model in
        let watcher = Watcher()
        watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
            blackHole(change.newValue)
        }
        return watcher
    }
    return Fixture(models, retaining: watchers)
}

/// The leaves of two chains, each observed as `\.a.b.c` by its own controller (the roots are retained).
private func observedChains() -> Fixture<[Leaf]> {
    let roots = [Root(), Root()]
    let watchers = roots.map { root in
        let watcher = Watcher()
        watcher.kvoController.observe(root, keyPath: \.a.b.c, options: [.new, .old]) { _, _, change in
            blackHole(change.newValue)
        }
        return watcher
    }
    return Fixture(roots.map { $0.a.b }, retaining: [roots, watchers])
}

@inline(never)
private func mutate(_ leaf: Leaf) {
    var value = leaf.c
    for _ in 0..<chainSetsPerObject {
        value &+= 1
        leaf.c = value
    }
}

@inline(never)
private func mutate(_ model: Counter) {
    var value = model.x
    for _ in 0..<setsPerObject {
        value &+= 1
        model.x = value
    }
}

/// Starts one thread per job and returns when all have finished.
private func runOnThreads(_ jobs: [@Sendable () -> Void]) {
    let done = DispatchSemaphore(value: 0)
    for job in jobs {
        let thread = Thread {
            job()
            done.signal()
        }
        thread.start()
    }
    for _ in jobs { done.wait() }
}
