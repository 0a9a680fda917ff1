import Foundation
import KVOMediator
import Observation
import Testing

/// The reads KVOMediator makes for itself (an `.initial` value, a chain's first evaluation, a stream's
/// first element, a token's start) never reach Swift's Observation: observing inside
/// `withObservationTracking` leaves the tracking closure depending on nothing it did not read itself.
@Suite struct ObservationBridgeOwnReadsTests {
    @Test func aControllersInitialValueOfAPropertyIsNotTracked() {
        let contact = BridgedContact()
        let observer = TestObserver()
        let fired = observationFires {
            observer.kvoController.observe(contact, keyPath: \.first, options: [.initial, .new]) { _, _, _ in }
        } after: {
            contact.first = "Grace"
        }
        #expect(fired == 0)
    }

    @Test func aChainsFirstEvaluationIsNotTrackedWithOrWithoutInitial() {
        for options: KVOOptions in [[.new], [.initial, .new]] {
            // A new key path object each time round, as a chain seen for the first time.
            let contact = BridgedContact()
            let observer = TestObserver()
            let fired = observationFires {
                observer.kvoController.observe(contact, keyPath: \.address.city, options: options) { _, _, _ in }
            } after: {
                contact.address.city = "Paris"
                contact.address = BridgedAddress()
            }
            #expect(fired == 0, "options \(options)")
            #expect(observer.kvoController.observationCount == 1)
        }
    }

    @Test func aTokensInitialValueIsNotTracked() throws {
        let contact = BridgedContact()
        var token: KVOObservation?
        let fired = observationFires {
            token = try? contact.observe(\.first, options: [.initial, .new]) { _, _ in }
        } after: {
            contact.first = "Grace"
        }
        #expect(fired == 0)
        #expect(try #require(token).isValid)
        token?.invalidate()
    }

    @Test func aStreamsFirstElementIsNotTracked() async throws {
        let contact = BridgedContact()
        var stream: KVOAsyncSequence<String>?
        let fired = observationFires {
            stream = try? contact.values(for: \.first)
        } after: {
            contact.first = "Grace"
        }
        #expect(fired == 0)
        var iterator = try #require(stream).makeAsyncIterator()
        #expect(await iterator.next() == "Ada")
        #expect(await iterator.next() == "Grace")
    }

    @Test func aStringKeyPathsInitialValueIsNotTracked() throws {
        let contact = BridgedContact()
        let observer = TestObserver()
        var thrown: (any Error)?
        let fired = observationFires {
            do {
                try observer.kvoController.observe(contact, keyPath: "address.city", options: [.initial, .new]) {
                    _,
                    _,
                    _ in
                }
            } catch { thrown = error }
        } after: {
            contact.address.city = "Paris"
        }
        #expect(thrown == nil)
        #expect(fired == 0)
    }

    @Test func whatTheTrackingClosureReadsItselfIsStillTracked() {
        let contact = BridgedContact()
        let observer = TestObserver()
        let fired = observationFires {
            observer.kvoController.observe(contact, keyPath: \.first, options: [.initial, .new]) { _, _, _ in }
            _ = contact.last
        } after: {
            contact.last = "Hopper"
        }
        #expect(fired == 1)
    }
}
