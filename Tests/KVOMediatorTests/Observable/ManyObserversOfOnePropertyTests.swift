import Testing

@testable import KVOMediator

/// Several registrations of one property: a set reaches each once, in the order they were made, and
/// only those that ask for `.prior` get a prior record, whichever place they have among the others.
@Suite struct ManyObserversOfOnePropertyTests {
    /// Observes `person.name` from `count` controllers; the one at `priorAt` (if any) with `.prior`.
    private func observers(
        of person: Person,
        count: Int,
        priorAt: Int?,
        into log: TextLog
    ) -> [TestObserver] {
        (0..<count).map { index in
            let observer = TestObserver()
            let options: KVOOptions = index == priorAt ? [.old, .new, .prior] : [.old, .new]
            observer.kvoController.observe(person, keyPath: \.name, options: options) { _, _, change in
                log.append(
                    "\(index) \(change.isPrior ? "prior" : "change") \(change.oldValue ?? "-")→\(change.newValue ?? "-")"
                )
            }
            return observer
        }
    }

    @Test func onlyTheRegistrationThatAsksForPriorRecordsGetsThemWhereverItIs() {
        for priorAt in [0, 2, 4] {
            let person = Person(name: "Ada")
            let log = TextLog()
            let made = observers(of: person, count: 5, priorAt: priorAt, into: log)
            person.name = "Grace"
            let changes = (0..<5).map { "\($0) change Ada→Grace" }
            #expect(log.entries == ["\(priorAt) prior Ada→-"] + changes, "prior at \(priorAt)")
            withExtendedLifetime(made) {}
        }
    }

    @Test func withNoneAskingForPriorRecordsEachGetsOneChangeRecordInOrder() {
        let person = Person(name: "Ada")
        let log = TextLog()
        let made = observers(of: person, count: 5, priorAt: nil, into: log)
        person.name = "Grace"
        person.name = "Hedy"
        let expected = ["Ada→Grace", "Grace→Hedy"].flatMap { values in (0..<5).map { "\($0) change \(values)" } }
        #expect(log.entries == expected)
        withExtendedLifetime(made) {}
    }
}
