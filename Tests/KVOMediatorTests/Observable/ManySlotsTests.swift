import Testing

@testable import KVOMediator

/// An object with more observed properties than a registrar scans (its field index takes over).
private final class Dashboard: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var p0 = 0
    @Observed var p1 = 0
    @Observed var p2 = 0
    @Observed var p3 = 0
    @Observed var p4 = 0
    @Observed var p5 = 0
    @Observed var p6 = 0
    @Observed var p7 = 0
    @Observed var p8 = 0
    @Observed var p9 = 0
    @Observed var p10 = 0
    @Observed var p11 = 0
    @Observed var p12 = 0
    @Observed var p13 = 0

    static var all: [ReferenceWritableKeyPath<Dashboard, Int>] {
        [\.p0, \.p1, \.p2, \.p3, \.p4, \.p5, \.p6, \.p7, \.p8, \.p9, \.p10, \.p11, \.p12, \.p13]
    }
}

@Suite struct ManySlotsTests {
    /// Each set reaches its own property's observers only, while properties are observed and
    /// unobserved in an order that moves the registrar's entries around.
    @Test func eachSetReachesItsOwnObserversAmongManyObservedProperties() {
        #expect(Dashboard.all.count - 3 > KVORegistrar.fieldIndexThresholdForTests + 1)
        let dashboard = Dashboard()
        let observer = TestObserver()
        let recorders = Dashboard.all.map { _ in Recorder<Int>() }
        for (keyPath, recorder) in zip(Dashboard.all, recorders) {
            observer.kvoController.observe(dashboard, keyPath: keyPath, options: [.old, .new]) { _, _, change in
                recorder.append(change)
            }
        }
        // Unobserve the first, a middle one and the last: entries move.
        let dropped: Set<Int> = [0, 6, 13]
        for index in dropped.sorted() { observer.kvoController.unobserve(dashboard, keyPath: Dashboard.all[index]) }
        #expect(dashboard.kvoRegistrar.subscriptionCount == Dashboard.all.count - dropped.count)
        for (index, keyPath) in Dashboard.all.enumerated() { dashboard[keyPath: keyPath] = index + 100 }
        for (index, recorder) in recorders.enumerated() {
            let expected = dropped.contains(index) ? [] : [change(Dashboard.all[index], old: 0, new: index + 100)]
            #expect(recorder.changes == expected, "p\(index)")
        }
        // Observe one again: it is found among the rest.
        observer.kvoController.observe(dashboard, keyPath: \.p6, options: [.new]) { _, _, change in
            recorders[6].append(change)
        }
        dashboard.p6 = 1
        #expect(recorders[6].changes == [change(\Dashboard.p6, new: 1)])
        observer.kvoController.unobserveAll()
        #expect(dashboard.kvoRegistrar.subscriptionCount == 0)
    }

    /// Random observes and unobserves of many properties: after each step, a set of every property
    /// reaches its observers exactly when it is observed (entries move in and out of the index).
    @Test(arguments: [7, 8, 9] as [UInt64])
    func randomObservesAndUnobservesKeepEachPropertysObservers(seed: UInt64) {
        let dashboard = Dashboard()
        let observer = TestObserver()
        let count = CallCounter()
        var observed = Set<Int>()
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for step in 0..<300 {
            let index = next(Dashboard.all.count)
            if observed.contains(index) {
                observer.kvoController.unobserve(dashboard, keyPath: Dashboard.all[index])
                observed.remove(index)
            } else {
                observer.kvoController.observe(dashboard, keyPath: Dashboard.all[index]) { _, _, _ in count.increment()
                }
                observed.insert(index)
            }
            let before = count.count
            for keyPath in Dashboard.all { dashboard[keyPath: keyPath] += 1 }
            #expect(count.count - before == observed.count, "step \(step)")
            #expect(dashboard.kvoRegistrar.subscriptionCount == observed.count, "step \(step)")
        }
    }
}
