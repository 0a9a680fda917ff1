import KVOMediator
import Testing

@testable import KVOMediator

/// Observed objects, observers and controllers go away when they should, leaving nothing behind.
@Suite struct LifetimeTests {
    @Test func observedObjectDeinitRemovesItsRegistrations() {
        let observer = TestObserver()
        weak var weakCircle: Circle?
        do {
            let circle = Circle()
            weakCircle = circle
            observer.kvoController.observe(circle, keyPath: \.radius) { _, _, _ in }
            observer.kvoController.observe(circle, keyPath: \.area) { _, _, _ in }
            #expect(observer.kvoController.observationCount == 2)
        }
        #expect(weakCircle == nil)
        #expect(observer.kvoController.observationCount == 0)
    }

    @Test func observerAndControllerAreReleasedWhileTheObjectLivesOn() {
        let circle = Circle()
        let recorder = Recorder<Double>()
        weak var weakObserver: TestObserver?
        weak var weakController: KVOController<TestObserver>?
        do {
            let observer = TestObserver()
            weakObserver = observer
            weakController = observer.kvoController
            observer.kvoController.observe(circle, keyPath: \.radius) { _, _, change in recorder.append(change) }
            circle.radius = 2
        }
        #expect(weakObserver == nil)
        #expect(weakController == nil)
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
        circle.radius = 3
        #expect(recorder.count == 1)
    }

    @Test func unobserveLeavesNoEntryInTheRegistrar() {
        let circle = Circle()
        let observer = TestObserver()
        observer.kvoController.observe(circle, keyPath: \.radius) { _, _, _ in }
        observer.kvoController.observe(circle, keyPath: \.area) { _, _, _ in }
        #expect(circle.kvoRegistrar.subscriptionCount == 2)
        observer.kvoController.unobserve(circle, keyPath: \.radius)
        #expect(circle.kvoRegistrar.subscriptionCount == 1)
        observer.kvoController.unobserveAll()
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
        #expect(!circle.kvoRegistrar._hasObservers)
    }

    @Test func newObjectAtAReusedAddressIsANewObject() {
        let observer = TestObserver()
        var deadAddresses = Set<ObjectIdentifier>()
        do {
            let first = Circle()
            deadAddresses.insert(ObjectIdentifier(first))
            observer.kvoController.observe(first, keyPath: \.radius) { _, _, _ in }
        }
        // Allocate until the allocator hands the dead object's address back (it usually does at once).
        var reused: Circle?
        var keep: [Circle] = []
        for _ in 0..<10_000 {
            let candidate = Circle()
            if deadAddresses.contains(ObjectIdentifier(candidate)) {
                reused = candidate
                break
            }
            keep.append(candidate)
        }
        let circle = reused ?? Circle()
        let recorder = Recorder<Double>()
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.initial, .new]) { _, _, change in
            recorder.append(change)
        }
        circle.radius = 8
        #expect(recorder.changes == [change(\Circle.radius, new: 1.0), change(\Circle.radius, new: 8.0)])
        #expect(observer.kvoController.observationCount == 1)
    }

    @Test func registrarOfAnUnobservedObjectHasNoObservers() {
        let circle = Circle()
        circle.radius = 4
        #expect(!circle.kvoRegistrar._hasObservers)
        #expect(circle.radius == 4)
    }
}
