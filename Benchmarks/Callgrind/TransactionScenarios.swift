import KVOMediator

// Issue 35's transactions and distinct values:
// - transaction_set: one set of notify_1's observed `x` inside a transaction that has set it before
//   (a transaction of 1,000 sets is 999 of these and one transaction_delivery);
// - transaction_delivery: a transaction of one set of notify_1's observed `x`: the set, and the one
//   record delivered at the end;
// - notify_1_distinct (in SetAndNotifyScenarios): notify_1 with `.distinct`, each set a new value.

func transactionScenarios() -> [Scenario] {
    [
        Scenario("transaction_set.ours") { iterations in
            let model = Counter()
            let received = Received()
            let watcher = Watcher()
            watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                received.record(change.newValue)
            }
            withKVOTransaction {
                model.x = -1
                forEachNewValue(iterations) { model.x = $0 }
            }
            withExtendedLifetime(watcher) { received.expect(1) }
        },
        Scenario("transaction_delivery.ours") { iterations in
            let model = Counter()
            let received = Received()
            let watcher = Watcher()
            watcher.kvoController.observe(model, keyPath: \.x, options: [.new, .old]) { _, _, change in
                received.record(change.newValue)
            }
            forEachNewValue(iterations) { value in withKVOTransaction { model.x = value } }
            withExtendedLifetime(watcher) { received.expect(iterations) }
        },
    ]
}
