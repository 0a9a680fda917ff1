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
        #expect(circle.kvoRegistrar.registrationCount == 0)
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
        #expect(circle.kvoRegistrar.registrationCount == 0)
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
        #expect(circle.kvoRegistrar.registrationCount == 0)
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
        #expect(circle.kvoRegistrar.registrationCount == 0)
        #expect(person.kvoRegistrar.registrationCount == 0)
    }

    @Test func nonRetainingControllerLetsObservedObjectsGo() {
        let observer = TestObserver()
        weak var weakCircle: Circle?
        do {
            let circle = Circle()
            weakCircle = circle
            observer.kvoController.observe(circle, keyPath: \.radius) { _, _, _ in }
        }
        #expect(weakCircle == nil)
        #expect(observer.kvoController.observationCount == 0)
    }

    @Test func retainingControllerKeepsObservedObjectsUntilUnobserved() {
        let observer = TestObserver()
        let controller = KVOController(observer: observer, retainsObserved: true)
        weak var weakCircle: Circle?
        do {
            let circle = Circle()
            weakCircle = circle
            controller.observe(circle, keyPath: \.radius) { _, _, _ in }
            controller.observe(circle, keyPath: \.name) { _, _, _ in }
        }
        #expect(weakCircle != nil)
        controller.unobserve(weakCircle, keyPath: \.radius)
        #expect(weakCircle != nil)
        controller.unobserve(weakCircle)
        #expect(weakCircle == nil)
    }

    @Test func retainingControllerReleasesObservedObjectsWhenItGoes() {
        weak var weakCircle: Circle?
        weak var weakObserver: TestObserver?
        do {
            let observer = TestObserver()
            weakObserver = observer
            let controller = KVOController(observer: observer, retainsObserved: true)
            let circle = Circle()
            weakCircle = circle
            controller.observe(circle, keyPath: \.radius) { _, _, _ in }
        }
        #expect(weakCircle == nil)
        #expect(weakObserver == nil)
    }

    @Test func observingItselfMakesNoRetainCycle() {
        weak var weakSelfObserver: SelfObserver?
        do {
            let object = SelfObserver()
            weakSelfObserver = object
            object.value = 4
            #expect(object.seen.changes == [change(\SelfObserver.value, new: 4)])
        }
        #expect(weakSelfObserver == nil)
    }

    @Test func callbackMayReleaseItsOwnController() {
        let circle = Circle()
        let counter = CallCounter()
        final class Holder {
            var controller: KVOController<Holder>?
        }
        let holder = Holder()
        holder.controller = KVOController(observer: holder)
        weak let weakController = holder.controller
        holder.controller?.observe(circle, keyPath: \.radius) { holder, _, _ in
            counter.increment()
            holder.controller = nil
        }
        holder.controller?.observe(circle, keyPath: \.area) { _, _, _ in counter.increment() }
        circle.radius = 2
        circle.radius = 3
        #expect(weakController == nil)
        #expect(counter.count <= 2)
        #expect(circle.kvoRegistrar.registrationCount == 0)
    }

    @Test func keyPathReadingNothingObservableIsReportedNotRegistered() {
        let circle = Circle()
        let observer = TestObserver()
        let errors = ErrorLog()
        observer.kvoController.errorHandler = { errors.append($0) }
        observer.kvoController.observe(circle, keyPath: \.plainTag) { _, _, _ in }
        observer.kvoController.observe(circle, keyPath: \.identifier) { _, _, _ in }
        #expect(observer.kvoController.observationCount == 0)
        #expect(circle.kvoRegistrar.registrationCount == 0)
        let reported = errors.errors
        #expect(reported.count == 2)
        #expect(reported.allSatisfy { $0.reason == .nothingObservable && $0.typeName == "Circle" })
        #expect(reported.first?.message.contains("\\Circle.plainTag") == true)
        #expect(reported.first?.message.contains("of Circle reads no observable property") == true)
        #expect(reported.first?.message.contains("@Observed") == true)
    }

    @Test func debugDescriptionListsObjectsKeyPathsAndOptions() {
        let circle = Circle()
        let square = Square()
        let observer = TestObserver()
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.new, .old]) { _, _, _ in }
        observer.kvoController.observe(circle, keyPath: \.area) { _, _, _ in }
        observer.kvoController.observe(square, keyPath: \.rotation, options: []) { _, _, _ in }
        let text = observer.kvoController.debugDescription
        #expect(text.hasPrefix("<KVOController<TestObserver>: 0x"))
        #expect(text.contains("observer: <TestObserver: 0x"))
        #expect(text.contains("  <Circle: 0x"))
        #expect(text.contains("  <Square: 0x"))
        #expect(text.contains("    radius [.new, .old]"))
        #expect(text.contains("    <computed from radius> [.new]"))
        #expect(text.contains("    rotation []"))
        #expect(text.contains("\n  ----\n"))
    }
}

/// Collects reported errors.
final class ErrorLog: @unchecked Sendable {  // `values` is guarded by `lock`
    private let lock = Lock()
    private var values: [KVOError] = []

    var errors: [KVOError] {
        lock.withLock { values }
    }

    func append(_ error: KVOError) {
        lock.withLock { values.append(error) }
    }
}

/// Changes what it observes from its own deinit, before its controller goes.
final class ChangingOnDeinitObserver {
    lazy var kvoController = KVOController(observer: self)
    let circle: Circle
    let person: Person

    init(circle: Circle, person: Person) {
        self.circle = circle
        self.person = person
    }

    deinit {
        circle.radius = 3
        person.address.city = "Nice"
    }
}
