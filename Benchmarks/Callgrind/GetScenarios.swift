import KVOMediator
import Observation
import OpenCombine

// get_unobserved: one read of an observable property while nothing tracks reads (no evaluation of a
// key path on any thread, no `withObservationTracking`): what every read in an app pays. Each read
// goes through a non-inlined function, the same for every implementation, so that a loop of reads
// stays a loop of reads.

func getScenarios() -> [Scenario] {
    [
        Scenario("get_unobserved.ours") { iterations in
            let model = Counter()
            sumReads(iterations) { get(model) }
        },
        Scenario("get_unobserved.observation") { iterations in
            let model = ObservationCounter()
            sumReads(iterations) { get(model) }
        },
        Scenario("get_unobserved.opencombine") { iterations in
            let model = CombineCounter()
            sumReads(iterations) { get(model) }
        },
        Scenario("get_unobserved.plain") { iterations in
            let model = PlainCounter()
            sumReads(iterations) { get(model) }
        },
    ]
}

/// Calls `read` `iterations` times and keeps the sum, so that no read is dropped.
@inline(__always)
private func sumReads(_ iterations: Int, _ read: () -> Int) {
    var total = 0
    for _ in 0..<iterations { total &+= read() }
    blackHole(total)
}

@inline(never)
private func get(_ model: Counter) -> Int {
    model.x
}

@inline(never)
private func get(_ model: ObservationCounter) -> Int {
    model.x
}

@inline(never)
private func get(_ model: CombineCounter) -> Int {
    model.x
}

@inline(never)
private func get(_ model: PlainCounter) -> Int {
    model.x
}
