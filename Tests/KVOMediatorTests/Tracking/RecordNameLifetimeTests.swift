import KVOMediator
import Testing

/// A record's `keyPathName` is its registration's own, found when the registration started: it stays
/// the same once a link of its chain is nil, once the registration ended, once the observed object
/// deinitialised.
@Suite struct RecordNameLifetimeTests {
    @Test func aChainsFirstRecordWhenItsLinkGoesNilIsNamedByTheChain() {
        let person = Person()
        person.secondHome = Address(city: "Lyon")
        let observer = TestObserver()
        let names = Recorded<String>()
        observer.kvoController.observe(person, keyPath: \.secondHome?.city) { _, _, change in
            names.append(change.keyPathName)
        }
        person.secondHome = nil
        person.secondHome = Address(city: "Nice")
        #expect(names.values == ["secondHome.city", "secondHome.city"])
    }

    @Test func recordsKeepTheirNamesOnceTheObservedObjectDeinitialised() {
        let radii = Recorder<Double>()
        let cities = Recorder<String>()
        let observer = TestObserver()
        do {
            let circle = Circle()
            let person = Person()
            observer.kvoController.observe(circle, keyPath: \.radius) { _, _, change in radii.append(change) }
            observer.kvoController.observe(person, keyPath: \.address.city) { _, _, change in cities.append(change) }
            circle.radius = 2
            person.address.city = "Paris"
        }
        #expect(observer.kvoController.observationCount == 0)
        #expect(radii.changes.map(\.keyPathName) == ["radius"])
        #expect(cities.changes.map(\.keyPathName) == ["address.city"])
    }
}
