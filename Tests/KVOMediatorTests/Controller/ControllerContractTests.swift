import KVOMediator
import Testing

@testable import KVOMediator

/// FBKVOController's contracts: unobserving, deduplication, no-ops, lifetimes.
@Suite struct ControllerContractTests {
    @Test func unobserveKeyPathStopsOnlyThatKeyPath() {
        let circle = Circle()
        let observer = TestObserver()
        let radii = Recorder<Double>()
        let names = Recorder<String>()
        observer.kvoController.observe(circle, keyPath: \.radius) { _, _, change in radii.append(change) }
        observer.kvoController.observe(circle, keyPath: \.name) { _, _, change in names.append(change) }
        observer.kvoController.unobserve(circle, keyPath: \.radius)
        circle.radius = 2
        circle.name = "b"
        #expect(radii.count == 0)
        #expect(names.changes == [change(\Circle.name, new: "b")])
    }

    @Test func unobserveObjectStopsAllItsKeyPathsOnly() {
        let first = Circle()
        let second = Circle()
        let observer = TestObserver()
        let counter = CallCounter()
        let seconds = Recorder<Double>()
        observer.kvoController.observe(first, keyPath: \.radius) { _, _, _ in counter.increment() }
        observer.kvoController.observe(first, keyPath: \.name) { _, _, _ in counter.increment() }
        observer.kvoController.observe(second, keyPath: \.radius) { _, _, change in seconds.append(change) }
        observer.kvoController.unobserve(first)
        first.radius = 2
        first.name = "x"
        second.radius = 3
        #expect(counter.count == 0)
        #expect(seconds.changes == [change(\Circle.radius, new: 3.0)])
        #expect(observer.kvoController.observationCount == 1)
    }

    @Test func unobserveAllStopsEverythingAndRepeatingItIsANoOp() {
        let circle = Circle()
        let observer = TestObserver()
        let counter = CallCounter()
        observer.kvoController.observe(circle, keyPaths: [\.radius, \.name, \.borderWidth]) { _, _, _ in
            counter.increment()
        }
        observer.kvoController.unobserveAll()
        observer.kvoController.unobserveAll()
        circle.radius = 2
        circle.name = "x"
        circle.borderWidth = 1
        #expect(counter.count == 0)
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func nilObjectsAndUnknownKeyPathsAreNoOps() {
        let circle = Circle()
        let stranger = Circle()
        let observer = TestObserver()
        let counter = CallCounter()
        let nothing: Circle? = nil
        observer.kvoController.observe(nothing, keyPath: \.radius) { _, _, _ in counter.increment() }
        observer.kvoController.observe(circle, keyPath: \.radius) { _, _, _ in counter.increment() }
        observer.kvoController.unobserve(nothing, keyPath: \.radius)
        observer.kvoController.unobserve(nil)
        observer.kvoController.unobserve(circle, keyPath: \.name)
        observer.kvoController.unobserve(stranger)
        observer.kvoController.unobserve(stranger, keyPath: \.radius)
        circle.radius = 2
        #expect(counter.count == 1)
        #expect(observer.kvoController.observationCount == 1)
    }

    @Test func secondObserveOfTheSameKeyPathIsIgnoredAndTheFirstWins() {
        let circle = Circle()
        let observer = TestObserver()
        let first = Recorder<Double>()
        let second = Recorder<Double>()
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.initial, .new]) { _, _, change in
            first.append(change)
        }
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.initial, .old, .new]) { _, _, change in
            second.append(change)
        }
        circle.radius = 2
        #expect(first.changes == [change(\Circle.radius, new: 1.0), change(\Circle.radius, new: 2.0)])
        #expect(second.count == 0)
        #expect(observer.kvoController.observationCount == 1)
    }

    #if DEBUG
    @Test func debugBuildsReportASecondObserveMadeElsewhereNamingBothPlaces() throws {
        let circle = Circle()
        let observer = TestObserver()
        let log = ErrorLog()
        observer.kvoController.errorHandler = { log.append($0) }
        let second = Recorder<Double>()
        let firstLine = #line + 1
        observer.kvoController.observe(circle, keyPath: \.radius) { _, _, _ in }
        let secondLine = #line + 1
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.old, .new]) { _, _, change in
            second.append(change)
        }
        circle.radius = 2
        #expect(second.count == 0)
        let error = try #require(log.errors.only)
        #expect(error.reason == .alreadyObserved)
        #expect(error.keyPath == "radius")
        #expect(error.typeName == "Circle")
        let file = "KVOMediatorTests/ControllerContractTests.swift"
        #expect(
            error.message
                == "KVOMediator: the observe of radius of Circle at \(file):\(secondLine) was ignored, with its options "
                + "and callback: this KVOController<TestObserver> observes that key path of that object already "
                + "(made at \(file):\(firstLine)), and a controller keeps one registration per object and key path. "
                + "To replace it, call unobserve(_:keyPath:) first; to have both, observe from another controller, "
                + "or with a token (object.observe(_:options:changeHandler:))."
        )
    }

    @Test func theSameObserveMadeAgainIsIgnoredWithoutAReport() throws {
        let circle = Circle()
        let other = Circle()
        let observer = TestObserver()
        let log = ErrorLog()
        observer.kvoController.errorHandler = { log.append($0) }
        for object in [circle, circle, other, circle] {
            observer.kvoController.observe(object, keyPath: \.radius) { _, _, _ in }
        }
        observer.kvoController.observe(circle, keyPath: \.name) { _, _, _ in }
        observer.kvoController.unobserve(circle, keyPath: \.radius)
        observer.kvoController.observe(circle, keyPath: \.radius) { _, _, _ in }
        // (The string form of a chain observed in typed form: one registration, the first, silently.)
        try observer.kvoController.observe(circle, keyPath: "name") { _, _, _ in }
        #expect(log.errors.isEmpty)
        #expect(observer.kvoController.observationCount == 3)
    }
    #endif

    @Test func twoControllersAreIndependent() {
        let circle = Circle()
        let one = TestObserver()
        let two = TestObserver()
        let ones = Recorder<Double>()
        let twos = Recorder<Double>()
        one.kvoController.observe(circle, keyPath: \.radius) { _, _, change in ones.append(change) }
        two.kvoController.observe(circle, keyPath: \.radius) { _, _, change in twos.append(change) }
        circle.radius = 2
        one.kvoController.unobserve(circle, keyPath: \.radius)
        circle.radius = 3
        #expect(ones.changes == [change(\Circle.radius, new: 2.0)])
        #expect(twos.changes == [change(\Circle.radius, new: 2.0), change(\Circle.radius, new: 3.0)])
    }

    @Test func reobservingAfterUnobserveRegistersAfresh() {
        let circle = Circle()
        let observer = TestObserver()
        let recorder = Recorder<Double>()
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.initial, .new]) { _, _, change in
            recorder.append(change)
        }
        observer.kvoController.unobserve(circle, keyPath: \.radius)
        circle.radius = 2
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.initial, .new]) { _, _, change in
            recorder.append(change)
        }
        circle.radius = 3
        #expect(
            recorder.changes == [
                change(\Circle.radius, new: 1.0), change(\Circle.radius, new: 2.0), change(\Circle.radius, new: 3.0),
            ]
        )
    }

    @Test func unobservingInsideTheInitialCallbackStopsTheRegistration() {
        let circle = Circle()
        let observer = TestObserver()
        let recorder = Recorder<Double>()
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.initial, .new]) {
            observer,
            circle,
            change in
            recorder.append(change)
            observer.kvoController.unobserve(circle, keyPath: \.radius)
        }
        circle.radius = 2
        #expect(recorder.changes == [change(\Circle.radius, new: 1.0)])
        #expect(observer.kvoController.observationCount == 0)
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func releasedControllerStopsObserving() {
        let circle = Circle()
        let counter = CallCounter()
        var controller: KVOController<TestObserver>? = nil
        let observer = TestObserver()
        controller = KVOController(observer: observer)
        controller?.observe(circle, keyPath: \.radius) { _, _, _ in counter.increment() }
        circle.radius = 2
        controller = nil
        circle.radius = 3
        #expect(counter.count == 1)
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func releasedObserverIsNeverCalledAndItsControllerGoesWithIt() {
        let circle = Circle()
        let counter = CallCounter()
        weak var weakController: KVOController<TestObserver>?
        do {
            let observer = TestObserver()
            weakController = observer.kvoController
            observer.kvoController.observe(circle, keyPath: \.radius) { _, _, _ in counter.increment() }
        }
        circle.radius = 2
        #expect(counter.count == 0)
        #expect(weakController == nil)
    }

    @Test func controllerOutlivingItsObserverCallsNothing() {
        let circle = Circle()
        let counter = CallCounter()
        var observer: TestObserver? = TestObserver()
        let controller = KVOController(observer: observer!)
        controller.observe(circle, keyPath: \.radius) { _, _, _ in counter.increment() }
        observer = nil
        #expect(controller.observer == nil)
        circle.radius = 2
        #expect(counter.count == 0)
    }

    @Test func observerIsNotCalledForChangesItsOwnDeinitMakes() {
        let circle = Circle()
        let person = Person()
        let counter = CallCounter()
        do {
            let observer = ChangingOnDeinitObserver(circle: circle, person: person)
            // Direct (one property) and re-read (a chain) registrations.
            observer.kvoController.observe(circle, keyPath: \.radius) { _, _, _ in counter.increment() }
            observer.kvoController.observe(person, keyPath: \.address.city) { _, _, _ in counter.increment() }
            circle.radius = 2
            person.address.city = "Lyon"
            #expect(counter.count == 2)
        }
        // The observer's deinit changed both; it was deinitialising, so neither block ran.
        #expect(circle.radius == 3)
        #expect(person.address.city == "Nice")
        #expect(counter.count == 2)
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
        #expect(person.kvoRegistrar.subscriptionCount == 0)
    }

}
