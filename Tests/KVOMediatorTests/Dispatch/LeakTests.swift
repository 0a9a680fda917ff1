import Foundation
import KVOMediator
import Testing

@testable import KVOMediator

/// Every callback style and retain option leaves nothing alive after teardown.
@Suite struct LeakTests {
    enum Style: String, CaseIterable, CustomTestStringConvertible {
        case block, action, context, keyPaths, string, queue, mainActor, chain, computed

        var testDescription: String { rawValue }
    }

    /// Registers `style` through `controller`, changes the object, and returns how to change it again.
    static func exercise(_ style: Style, controller: KVOController<ContextObserver>, person: Person) throws {
        switch style {
        case .block:
            controller.observe(person, keyPath: \.name, options: [.initial, .old, .new, .prior]) { _, _, _ in }
        case .action:
            controller.observe(person, keyPath: \.name, action: ContextObserver.nameChanged)
        case .context:
            controller.observe(person, keyPaths: [\.name, \.nickname], context: UnsafeMutableRawPointer(bitPattern: 1))
        case .keyPaths:
            controller.observe(person, keyPaths: [\.name, \.address]) { _, _, _ in }
        case .string:
            try controller.observe(person, keyPath: "address.city") { _, _, _ in }
        case .queue:
            controller.observe(person, keyPath: \.name, delivery: .queue(.global())) { _, _ in }
        case .mainActor:
            controller.observe(person, keyPath: \.name, delivery: .mainActor) { _, _ in }
        case .chain:
            controller.observe(person, keyPath: \.address.street.number) { _, _, _ in }
        case .computed:
            controller.observe(person, keyPath: \.displayName) { _, _, _ in }
        }
        person.name = "changed"
        person.address.city = "changed"
    }

    @Test(arguments: Style.allCases, [false, true])
    func everythingGoesAwayAfterTeardown(style: Style, retainsObserved: Bool) async throws {
        weak var weakObserver: ContextObserver?
        weak var weakController: KVOController<ContextObserver>?
        weak var weakPerson: Person?
        weak var weakAddress: Address?
        do {
            let observer = ContextObserver()
            let controller = KVOController(observer: observer, retainsObserved: retainsObserved)
            let person = Person()
            weakObserver = observer
            weakController = controller
            weakPerson = person
            weakAddress = person.address
            try Self.exercise(style, controller: controller, person: person)
            #expect(controller.observationCount > 0)
        }
        // Queued deliveries hold nothing strongly, but let any in flight finish before looking.
        await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
        await withCheckedContinuation { continuation in DispatchQueue.global().async { continuation.resume() } }
        #expect(weakController == nil)
        #expect(weakObserver == nil)
        #expect(weakPerson == nil)
        #expect(weakAddress == nil)
    }

    @Test func tokensBagsAndStreamsLeaveNothingAlive() async throws {
        weak var weakPerson: Person?
        weak var weakBag: KVOObservationBag?
        do {
            let person = Person()
            weakPerson = person
            let bag = KVOObservationBag()
            weakBag = bag
            try person.observe(\.name) { _, _ in }.store(in: bag)
            try person.observe(\.address.city, options: [.initial, .new]) { _, _ in }.store(in: bag)
            let values = try person.values(for: \.name)
            let changes = try person.changes(for: \.address.city, options: [.initial, .new])
            person.name = "x"
            var iterator = values.makeAsyncIterator()
            _ = await iterator.next()
            withExtendedLifetime(changes) {}
        }
        #expect(weakPerson == nil)
        #expect(weakBag == nil)
    }
}

extension ContextObserver {
    func nameChanged(_ change: KVOChange<String>) {}
}
