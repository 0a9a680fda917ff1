import Dispatch
import KVOMediator
import Testing

@testable import KVOMediator

/// What a controller holds: observed objects (retaining or not), itself, and errors it reports.
@Suite struct ControllerOwnershipTests {
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
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func keyPathReadingNothingObservableIsReportedNotRegistered() {
        let circle = Circle()
        let observer = TestObserver()
        let errors = ErrorLog()
        observer.kvoController.errorHandler = { errors.append($0) }
        observer.kvoController.observe(circle, keyPath: \.plainTag) { _, _, _ in }
        observer.kvoController.observe(circle, keyPath: \.identifier) { _, _, _ in }
        #expect(observer.kvoController.observationCount == 0)
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
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

    @Test func debugDescriptionSaysWhereEachRegistrationWasMadeAndHowItDelivers() {
        let circle = Circle()
        let observer = TestObserver()
        let queue = DispatchQueue(label: "KVOMediatorTests.sites")
        let line = #line + 1
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.new]) { _, _, _ in }
        observer.kvoController.observe(circle, keyPath: \.area, delivery: .queue(queue, coalescing: .latest)) { _, _ in
        }
        let square = Square()
        observer.kvoController.observe(square, keyPath: \.rotation, file: "Somewhere/Else.swift", line: 7) { _, _, _ in
        }
        let text = observer.kvoController.debugDescription
        let file = "KVOMediatorTests/ControllerOwnershipTests.swift"
        #expect(text.contains("    radius [.new]  // \(file):\(line), block, on the changing thread"))
        // (A coalescing registration captures both values, to merge them: its options say so.)
        #expect(
            text.contains(
                "    <computed from radius> [.new, .old]  // \(file):\(line + 1), block, on a queue, coalescing"
            )
        )
        #expect(text.contains("    rotation [.new]  // Somewhere/Else.swift:7, block, on the changing thread"))
    }
}
