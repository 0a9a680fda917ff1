import Foundation
import KVOMediator
import Testing

/// The paths issue 34 made faster deliver exactly what the general ones did: a string key path of one
/// property, a slot with many observers, and declared dependencies.
@Suite struct ShapePathsTests {
    /// `typed` and `named` hold the same records, but for the key path.
    private func sameRecords<Value: Equatable>(_ named: [KVOChange<Any>], _ typed: [KVOChange<Value>]) -> Bool {
        named.count == typed.count
            && zip(named, typed).allSatisfy { named, typed in
                named.kind == typed.kind && named.isPrior == typed.isPrior && named.indexes == typed.indexes
                    && (named.oldValue == nil) == (typed.oldValue == nil)
                    && (named.newValue == nil) == (typed.newValue == nil)
            }
    }

    @Test func aStringKeyPathOfOnePropertyGivesTheTypedRecordsWithItsOptionalsRemoved() throws {
        let shapes = Shapes()
        let observer = TestObserver()
        let named = Recorder<Any>()
        let count = Recorder<Int>()
        try observer.kvoController.observe(shapes, keyPath: "count", options: [.old, .new, .prior]) { _, _, change in
            named.append(change)
        }
        TestObserver().kvoController.observe(shapes, keyPath: \.count, options: [.old, .new, .prior]) { _, _, _ in }
        let typedObserver = TestObserver()
        typedObserver.kvoController.observe(shapes, keyPath: \.count, options: [.old, .new, .prior]) { _, _, change in
            count.append(change)
        }
        shapes.count = 1
        shapes.count = 2
        #expect(sameRecords(named.changes, count.changes))
        #expect(named.changes.map { $0.oldValue as? Int } == [0, 0, 1, 1])
        #expect(named.changes.map { $0.newValue as? Int } == [nil, 1, nil, 2])
        #expect(named.changes.map(\.isPrior) == [true, false, true, false])
        withExtendedLifetime((observer, typedObserver)) {}
    }

    @Test func aStringKeyPathOfAnOptionalGivesItsValueOrANilValue() throws {
        let shapes = Shapes()
        let observer = TestObserver()
        let label = Recorder<Any>()
        let nested = Recorder<Any>()
        try observer.kvoController.observe(shapes, keyPath: "label", options: [.old, .new]) { _, _, change in
            label.append(change)
        }
        try observer.kvoController.observe(shapes, keyPath: "nested", options: [.old, .new]) { _, _, change in
            nested.append(change)
        }
        shapes.label = "a"
        shapes.label = nil
        shapes.nested = .some(.some(3))
        shapes.nested = nil
        // A value out of its optionals; a nil one (at any level) is a value that is nil, as the string
        // key path's subscript gives it, not an absent value.
        #expect(label.changes.map { $0.newValue.map { "\($0)" } } == ["a", "nil"])
        #expect(label.changes.map { $0.oldValue.map { "\($0)" } } == ["nil", "a"])
        #expect(label.changes.map { $0.newValue as? String } == ["a", nil])
        #expect(nested.changes.map { $0.newValue as? Int } == [3, nil])
        #expect(nested.changes.map { $0.newValue.map { "\($0)" } } == ["3", "nil"])
        #expect(nested.changes.map { $0.oldValue.map { "\($0)" } } == ["nil", "3"])
        #expect(label.changes.map(\.keyPathName) == ["label", "label"])
        withExtendedLifetime(observer) {}
    }

    @Test(arguments: [10, 100, 1_000])
    func everyObserverOfASlotGetsEachChangeOnceInOrder(_ observers: Int) {
        let shapes = Shapes()
        let watchers = (0..<observers).map { _ in TestObserver() }
        let recorders = (0..<observers).map { _ in Recorder<Int>() }
        for (watcher, recorder) in zip(watchers, recorders) {
            watcher.kvoController.observe(shapes, keyPath: \.count, options: [.old, .new]) { _, _, change in
                recorder.append(change)
            }
        }
        for value in 1...3 { shapes.count = value }
        let expected = (1...3).map { change(\Shapes.count, old: $0 - 1, new: $0) }
        #expect(recorders.allSatisfy { $0.changes == expected })
        withExtendedLifetime(watchers) {}
    }

    @Test func aSlotWithDirectAndComputedObserversTellsEachOnce() {
        let person = Person()
        let observer = TestObserver()
        let direct = Recorder<String>()
        let computed = Recorder<String>()
        let second = Recorder<String>()
        observer.kvoController.observe(person, keyPath: \.name, options: [.old, .new]) { _, _, change in
            direct.append(change)
        }
        observer.kvoController.observe(person, keyPath: \.displayName, options: [.old, .new]) { _, _, change in
            computed.append(change)
        }
        let other = TestObserver()
        other.kvoController.observe(person, keyPath: \.name, options: [.new]) { _, _, change in second.append(change) }
        person.name = "Grace"
        #expect(direct.changes == [change(\Person.name, old: "Ada", new: "Grace")])
        #expect(computed.changes == [change(\Person.displayName, old: "Ada", new: "Grace")])
        #expect(second.changes == [change(\Person.name, new: "Grace")])
        withExtendedLifetime((observer, other)) {}
    }

    @Test func eachClassDeclaresForItselfEvenForTheSameKeyPath() {
        // `\.link.total` reads `total` through the one key path `\DeclaringBase.total` on both objects.
        let base = DeclaringHolder(DeclaringBase())
        let sub = DeclaringHolder(DeclaringSub())
        let observer = TestObserver()
        let baseCount = CallCounter()
        let subCount = CallCounter()
        observer.kvoController.observe(base, keyPath: \.link.total, options: [.new]) { _, _, _ in baseCount.increment()
        }
        observer.kvoController.observe(sub, keyPath: \.link.total, options: [.new]) { _, _, _ in subCount.increment() }
        base.link.first += 1
        sub.link.first += 1
        #expect((baseCount.count, subCount.count) == (1, 0))
        base.link.second += 1
        sub.link.second += 1
        // The base declares `first`, the subclass `second`: each object is told of its own only.
        #expect((baseCount.count, subCount.count) == (1, 1))
        withExtendedLifetime(observer) {}
    }
}
