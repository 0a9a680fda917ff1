import KVOMediator
import Testing

@testable import KVOMediator

/// Key path chains: fire on any link's change, re-subscribe when an intermediate object is replaced.
@Suite struct ChainTests {
    @Test func chainFiresWhenTheLeafChanges() {
        let person = Person(city: "London")
        let observer = TestObserver()
        let recorder = Recorder<String>()
        observer.kvoController.observe(person, keyPath: \.address.city, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        person.address.city = "Paris"
        #expect(recorder.changes == [change(\Person.address.city, old: "London", new: "Paris")])
    }

    @Test func replacingTheIntermediateFiresWithTheNewLeafAndUnsubscribesTheOld() {
        let person = Person(city: "London")
        let oldAddress = person.address
        let observer = TestObserver()
        let recorder = Recorder<String>()
        observer.kvoController.observe(person, keyPath: \.address.city, options: [.old, .new, .prior]) { _, _, change in
            recorder.append(change)
        }
        person.address = Address(city: "Rome")
        oldAddress.city = "Oslo"  // no longer part of the chain
        person.address.city = "Milan"
        #expect(
            recorder.changes == [
                change(\Person.address.city, old: "London", prior: true),
                change(\Person.address.city, old: "London", new: "Rome"),
                change(\Person.address.city, old: "Rome", prior: true),
                change(\Person.address.city, old: "Rome", new: "Milan"),
            ]
        )
        #expect(oldAddress.kvoRegistrar.subscriptionCount == 0)
        #expect(person.address.kvoRegistrar.subscriptionCount == 1)
    }

    @Test func chainOfDepthThreeFollowsEveryLink() {
        let person = Person()
        let observer = TestObserver()
        let recorder = Recorder<Int>()
        observer.kvoController.observe(person, keyPath: \.address.street.number, options: [.old, .new]) {
            _,
            _,
            change in
            recorder.append(change)
        }
        person.address.street.number = 2
        let newStreet = Street()
        newStreet.number = 30
        person.address.street = newStreet
        let newAddress = Address(city: "Bern")
        newAddress.street.number = 400
        let droppedAddress = person.address
        person.address = newAddress
        droppedAddress.street.number = -1
        newStreet.number = -2
        person.address.street.number = 401
        let keyPath: AnyKeyPath = \Person.address.street.number
        #expect(
            recorder.changes == [
                change(keyPath, old: 1, new: 2),
                change(keyPath, old: 2, new: 30),
                change(keyPath, old: 30, new: 400),
                change(keyPath, old: 400, new: 401),
            ]
        )
    }

    @Test func nilIntermediateGivesAnOptionalNewValueThatCanBeToldApart() {
        let person = Person()
        let observer = TestObserver()
        let recorder = Recorder<String?>()
        observer.kvoController.observe(person, keyPath: \.secondHome?.city, options: [.initial, .old, .new]) {
            _,
            _,
            change in recorder.append(change)
        }
        person.secondHome = Address(city: "Nice")
        person.secondHome?.city = "Cannes"
        person.secondHome = nil
        let changes = recorder.changes
        #expect(changes.count == 4)
        // Initial: the chain is broken, so newValue is present (.some) but holds nil.
        #expect(changes[0].newValue == .some(nil))
        #expect(changes[1].oldValue == .some(nil) && changes[1].newValue == .some("Nice"))
        #expect(changes[2].oldValue == .some("Nice") && changes[2].newValue == .some("Cannes"))
        #expect(changes[3].oldValue == .some("Cannes") && changes[3].newValue == .some(nil))
    }

    @Test func chainWithNilIntermediateResubscribesWhenItIsSet() {
        let person = Person()
        let observer = TestObserver()
        let counter = CallCounter()
        observer.kvoController.observe(person, keyPath: \.secondHome?.street.number) { _, _, _ in counter.increment() }
        let home = Address(city: "Lyon")
        person.secondHome = home
        home.street.number = 5
        person.secondHome = nil
        home.street.number = 6  // detached: no longer fires
        #expect(counter.count == 3)
        #expect(home.kvoRegistrar.subscriptionCount == 0)
        #expect(home.street.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func intermediateObjectDeinitLeavesTheChainWorking() {
        let person = Person()
        let observer = TestObserver()
        let recorder = Recorder<String>()
        observer.kvoController.observe(person, keyPath: \.address.city, options: [.new]) { _, _, change in
            recorder.append(change)
        }
        weak var weakOld: Address?
        do {
            weakOld = person.address
            person.address = Address(city: "Turin")
        }
        #expect(weakOld == nil)
        person.address.city = "Genoa"
        #expect(recorder.changes.map(\.newValue) == ["Turin", "Genoa"])
    }
}

/// A holder whose link to the observed object is a plain `let`: it reads none of its own slots.
final class Holder: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    let address = Address(city: "Kyiv")
}

@Suite struct RootLifetimeTests {
    @Test func registrationReadingOnlyOtherObjectsEndsWhenTheRootDeinitialises() throws {
        let observer = TestObserver()
        var holder: Holder? = Holder()
        let address = holder!.address
        let counter = CallCounter()
        observer.kvoController.observe(holder, keyPath: \.address.city) { _, _, _ in counter.increment() }
        let token = try holder!.observe(\.address.city) { _, _ in counter.increment() }
        address.city = "Lviv"
        #expect(counter.count == 2)
        holder = nil
        #expect(observer.kvoController.observationCount == 0)
        #expect(!token.isValid)
        #expect(address.kvoRegistrar.subscriptionCount == 0)
        address.city = "Odesa"
        #expect(counter.count == 2)
    }

    @Test func valueStreamOfAnArrayGetsWholeArraysOnCollectionMutations() async throws {
        let playlist = Playlist()
        let values = try playlist.values(for: \.songs)
        let songs = playlist.mutableArrayValue(for: \.songs)
        songs.append("a")
        songs.append("b")
        songs.remove(at: 0)
        var iterator = values.makeAsyncIterator()
        #expect(await iterator.next() == [])
        #expect(await iterator.next() == ["a"])
        #expect(await iterator.next() == ["a", "b"])
        #expect(await iterator.next() == ["b"])
    }

    @Test func computedPropertyIsNotTakenForThePropertyItReads() throws {
        let circle = Circle()
        let observer = TestObserver()
        let counter = CallCounter()
        observer.kvoController.observe(circle, keyPath: \.area) { _, _, _ in counter.increment() }
        try observer.kvoController.observe(circle, keyPath: "radius") { _, _, _ in counter.increment() }
        #expect(observer.kvoController.observationCount == 2)
        observer.kvoController.unobserve(circle, keyPath: "radius")
        #expect(observer.kvoController.observationCount == 1)
        circle.radius = 3
        #expect(counter.count == 1)
    }
}
