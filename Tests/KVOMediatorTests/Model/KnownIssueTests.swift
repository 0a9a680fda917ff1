import Foundation
import KVOMediator
import Testing

/// Where the reference model and the library disagree and the library is wrong, each as its smallest
/// case. The random programs steer around these (`ProgramGenerator`); `KVO_MODEL_KNOWN_ISSUES=include`
/// lets them in. When one is fixed its `withKnownIssue` fails: remove the wrapper, and the generator's
/// avoidance with it.
///
/// The chain cases are intermittent: a typed chain's name is learnt from a whole chain and kept per key
/// path object (`KeyPathNameCache`), and in optimised builds registrations of the same literal with the
/// same types share one object wherever they are written (see `_KeyPathReading`), so another test that
/// observed the whole chain first teaches this one its name.
@Suite struct KnownIssueTests {
    @Test func theTypedAndStringFormsOfAChainAreOneRegistrationWhileALinkIsNil() throws {
        let depot = ModelDepot()
        let observer = TestObserver()
        let calls = CallCounter()
        observer.kvoController.observe(depot, keyPath: \.a?.b?.value) { _, _, _ in calls.increment() }
        try observer.kvoController.observe(depot, keyPath: "a.b.value") { _, _, _ in calls.increment() }
        depot.a = ModelLinkA()
        withKnownIssue(
            Comment(
                rawValue:
                    "Observing \"a.b.value\" after \\.a?.b?.value (or the other way round) while a link is nil makes a "
                    + "second registration: the typed chain's name is not known until it is whole, so the forms do not meet"
            ),
            isIntermittent: true
        ) {
            #expect(observer.kvoController.observationCount == 1)
            #expect(calls.count == 1)
        }
    }

    @Test func unobservingAChainByNameWhileALinkIsNilEndsItsTypedRegistration() {
        let depot = ModelDepot()
        let observer = TestObserver()
        observer.kvoController.observe(depot, keyPath: \.a?.b?.value) { _, _, _ in }
        observer.kvoController.unobserve(depot, keyPath: "a.b.value")
        withKnownIssue(
            "unobserve(_:keyPath: \"a.b.value\") leaves the registration of \\.a?.b?.value while a link is nil",
            isIntermittent: true
        ) {
            #expect(observer.kvoController.observationCount == 0)
        }
    }

    @Test func unobservingAChainByItsTypedKeyPathWhileALinkIsNilEndsItsStringRegistration() throws {
        let depot = ModelDepot()
        let observer = TestObserver()
        try observer.kvoController.observe(depot, keyPath: "a.b.value") { _, _, _ in }
        observer.kvoController.unobserve(depot, keyPath: \ModelDepot.a?.b?.value)
        withKnownIssue(
            "unobserve(_:keyPath: \\.a?.b?.value) leaves the registration of \"a.b.value\" while a link is nil",
            isIntermittent: true
        ) {
            #expect(observer.kvoController.observationCount == 0)
        }
    }
}
