import Benchmark
import Foundation
import KVOMediator

// two_threads: two threads each setting its own observed object (one observer each, [.new, .old])
// against one thread making the same sets on the same two objects. run.sh reports the throughput
// ratio, serial time / parallel time (2.0 means perfect scaling).
//
// Both variants run their work on freshly started threads and wait for them, so thread start-up
// (tens of microseconds, against milliseconds of work) is in both.

private let setsPerObject = 100_000

func registerThreadBenchmarks() {
    let threadConfiguration = configuration(warmupIterations: 2, maxDuration: .seconds(2), maxIterations: 60)

    register(
        "two_threads",
        "parallel",
        operations: 2 * setsPerObject,
        configuration: threadConfiguration,
        setup: observedPair()
    ) { _, fixture in
        let models = fixture.model
        runOnThreads([{ mutate(models[0]) }, { mutate(models[1]) }])
    }

    register(
        "two_threads",
        "serial",
        operations: 2 * setsPerObject,
        configuration: threadConfiguration,
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
