import Benchmark
import KVOMediator

// Issue 35's transactions, with notify_1's observed counter (a KVOController block with [.new, .old]):
// - transaction_set: one set inside a transaction that has set the property before (a transaction of
//   1,000 sets is 999 of these and one transaction_delivery);
// - transaction_delivery: a transaction of one set: the set, and the one record delivered at its end.

private let changeCount = 1_000

func registerTransactionBenchmarks() {
    register("transaction_set", "ours", operations: changeCount, setup: observedCounter()) { _, fixture in
        var value = fixture.counter
        withKVOTransaction {
            for _ in 0..<changeCount {
                value &+= 1
                fixture.model.x = value
            }
        }
        fixture.counter = value
    }

    register("transaction_delivery", "ours", operations: changeCount, setup: observedCounter()) { _, fixture in
        var value = fixture.counter
        for _ in 0..<changeCount {
            value &+= 1
            withKVOTransaction { fixture.model.x = value }
        }
        fixture.counter = value
    }
}

private func observedCounter() -> Fixture<Counter> {
    let model = Counter()
    let watcher = Watcher()
    watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
        blackHole(change.newValue)
    }
    return Fixture(model, retaining: [watcher])
}
