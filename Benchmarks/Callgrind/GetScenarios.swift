import KVOMediator
import Observation
import OpenCombine

// get_unobserved: one read of an observable property while nothing tracks reads (no evaluation of a
// key path on any thread, no `withObservationTracking`): what every read in an app pays. Each read
// goes through a non-inlined function, the same for every implementation, after the model has been
// handed to `blackHole` (which may change it, for all the optimiser knows), so that a loop of reads of
// a plain stored property stays a loop of reads: every row includes that one call.

func getScenarios() -> [Scenario] {
    [
        Scenario("get_unobserved.ours") { iterations in
            let model = Counter()
            sumReads(iterations, of: model) { get($0) }
        },
        Scenario("get_unobserved.observation") { iterations in
            let model = ObservationCounter()
            sumReads(iterations, of: model) { get($0) }
        },
        Scenario("get_unobserved.opencombine") { iterations in
            let model = CombineCounter()
            sumReads(iterations, of: model) { get($0) }
        },
        Scenario("get_unobserved.plain") { iterations in
            let model = PlainCounter()
            sumReads(iterations, of: model) { get($0) }
        },
    ]
}

/// Calls `read` `iterations` times and keeps the sum, so that no read is dropped.
@inline(__always)
private func sumReads<Model: AnyObject>(_ iterations: Int, of model: Model, _ read: (Model) -> Int) {
    var total = 0
    for _ in 0..<iterations {
        blackHole(model)
        total &+= read(model)
    }
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
