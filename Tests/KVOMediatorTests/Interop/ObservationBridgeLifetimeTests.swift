import Foundation
import Observation
import Testing

@testable import KVOMediator

/// `Observations`, a main-actor model, lifetimes and threads for classes bridged to Observation.
@Suite struct ObservationBridgeLifetimeTests {
    @Test func observationsYieldsTheValuesInOrder() async {
        guard #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) else { return }
        let contact = BridgedContact()
        var names = Observations { contact.fullName }.makeAsyncIterator()
        #expect(await names.next() == "Ada Lovelace")
        contact.first = "Grace"
        #expect(await names.next() == "Grace Lovelace")
        contact.last = "Hopper"
        #expect(await names.next() == "Grace Hopper")
        // Changes with no suspension between them are one transaction: its last value.
        contact.first = "Hedy"
        contact.first = "Joan"
        #expect(await names.next() == "Joan Hopper")
    }

    @Test func observationsOfAnotherThreadsChangesYieldsIncreasingValuesUpToTheLast() async {
        guard #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) else { return }
        let contact = BridgedContact()
        let changes = 200
        var seen: [Int] = []
        let writer = TestThread { for value in 1...changes { contact.visits = value } }
        for await visits in Observations({ contact.visits }) {
            seen.append(visits)
            if visits == changes { break }
        }
        writer.join()
        #expect(seen.last == changes)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 })
    }

    @MainActor
    @Test func aMainActorModelIsTrackedObservedAndStreamed() async {
        let board = BridgedScoreboard()
        let tally = CallTally()
        withObservationTracking {
            _ = board.summary
        } onChange: {
            tally.record()
        }
        let observer = TestObserver()
        let summaries = Recorded<String>()
        observer.kvoController.observe(board, keyPath: \.summary, options: [.new]) { _, _, change in
            summaries.append(change.newValue!)
        }
        board.home = 1
        board.away = 2
        #expect(tally.count == 1)
        #expect(summaries.values == ["1–0", "1–2"])
        guard #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) else { return }
        var streamed = Observations { board.summary }.makeAsyncIterator()
        #expect(await streamed.next() == "1–2")
        board.home = 3
        #expect(await streamed.next() == "3–2")
        #expect(summaries.values == ["1–0", "1–2", "3–2"])
    }

    @Test func bothWorldsStopWhenTheModelDeinitialisesAsForObservable() {
        // Observation's own model first: what its tracking does when the object goes.
        let referenceTally = CallTally()
        weak var referenceProbe: ObservableContact?
        do {
            let reference = ObservableContact()
            referenceProbe = reference
            withObservationTracking {
                _ = reference.first
            } onChange: {
                referenceTally.record()
            }
        }
        #expect(referenceProbe == nil)

        let tally = CallTally()
        let observer = TestObserver()
        let cities = Recorded<String>()
        weak var probe: BridgedContact?
        let address = BridgedAddress()
        do {
            let contact = BridgedContact()
            contact.address = address
            probe = contact
            withObservationTracking {
                _ = contact.fullName
            } onChange: {
                tally.record()
            }
            observer.kvoController.observe(contact, keyPath: \.address.city) { _, _, change in
                cities.append(change.newValue!)
            }
            #expect(observer.kvoController.observationCount == 1)
        }
        #expect(probe == nil)
        #expect(tally.count == referenceTally.count)
        #expect(observer.kvoController.observationCount == 0)
        address.city = "Paris"
        #expect(cities.values == [])
        #expect(tally.count == referenceTally.count)
    }

    @Test func observationsEndsWithNoFurtherValueWhenTheModelDeinitialises() async {
        guard #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) else { return }
        weak var probe: BridgedContact?
        var contact: BridgedContact? = BridgedContact()
        probe = contact
        var names = Observations<String, Never>.untilFinished { [weak contact] in
            guard let contact else { return .finish }
            return .next(contact.first)
        }
        .makeAsyncIterator()
        #expect(await names.next() == "Ada")
        contact = nil
        #expect(probe == nil)
        // This toolchain's Observation does not resume an iteration when an object deinitialises (for an
        // `@Observable` class neither): the iteration ends with no further value once cancelled.
        let rest = Task { [names] in
            var names = names
            return await names.next()
        }
        rest.cancel()
        #expect(await rest.value == nil)
    }

    @Test func setsBeforeAnyReadMakeNoObservationRegistrarAndAReadMakesOne() {
        let contact = BridgedContact()
        contact.first = "Grace"
        #expect(contact.kvoRegistrar.observationBridge.load() == nil)
        _ = contact.first
        #expect(contact.kvoRegistrar.observationBridge.load() != nil)
        let unbridged = UnbridgedContact()
        _ = unbridged.fullName
        #expect(unbridged.kvoRegistrar.observationBridge.load() == nil)
    }

    @Test func threadsChangingTheirOwnModelsAreEachSeenOnceByBothWorlds() {
        let changes = 500
        let contacts = (0..<4).map { _ in BridgedContact() }
        let observer = TestObserver()
        let delivered = contacts.map { _ in CallTally() }
        for (contact, tally) in zip(contacts, delivered) {
            observer.kvoController.observe(contact, keyPath: \.visits) { _, _, _ in tally.record() }
        }
        let loops = contacts.map { contact in ObservationLoop { _ = contact.visits } }
        let threads = contacts.map { contact in TestThread { for value in 1...changes { contact.visits = value } } }
        for thread in threads { thread.join() }
        #expect(loops.map(\.tally.count) == [changes, changes, changes, changes])
        #expect(delivered.map(\.count) == [changes, changes, changes, changes])
        #expect(contacts.map(\.visits) == [changes, changes, changes, changes])
    }

    @Test func threadsThatStartTrackingAFreshModelAtOnceAreAllTold() {
        let threadCount = 8
        for round in 0..<20 {
            let contact = BridgedContact()
            let tally = CallTally()
            let gate = DispatchSemaphore(value: 0)
            let threads = (0..<threadCount).map { _ in
                TestThread {
                    gate.wait()
                    withObservationTracking {
                        _ = contact.first
                    } onChange: {
                        tally.record()
                    }
                }
            }
            for _ in 0..<threadCount { gate.signal() }
            for thread in threads { thread.join() }
            contact.first = "Grace \(round)"
            #expect(tally.count == threadCount)
        }
    }
}
