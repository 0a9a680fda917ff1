import KVOMediator
import Testing

@testable import KVOMediator

/// Tokens: the registration lives as long as the token; bags end many together.
@Suite struct ObservationTokenTests {
    @Test func tokenDeliversUntilDropped() throws {
        let circle = Circle()
        let recorder = Recorder<Double>()
        var token: KVOObservation? = try circle.observe(\.radius, options: [.initial, .old, .new]) { _, change in
            recorder.append(change)
        }
        circle.radius = 2
        token = nil
        circle.radius = 3
        #expect(token == nil)
        #expect(recorder.changes == [change(\Circle.radius, new: 1.0), change(\Circle.radius, old: 1.0, new: 2.0)])
        #expect(circle.kvoRegistrar.registrationCount == 0)
    }

    @Test func invalidateIsIdempotentAndStopsCallbacks() throws {
        let circle = Circle()
        let counter = CallCounter()
        let token = try circle.observe(\.radius) { _, _ in counter.increment() }
        #expect(token.isValid)
        circle.radius = 2
        token.invalidate()
        token.invalidate()
        circle.radius = 3
        #expect(!token.isValid)
        #expect(counter.count == 1)
    }

    @Test func tokenCanBeInvalidatedInsideItsCallback() throws {
        let circle = Circle()
        let counter = CallCounter()
        let holder = TokenHolder()
        holder.token = try circle.observe(\.radius) { _, _ in
            counter.increment()
            holder.token?.invalidate()
        }
        circle.radius = 2
        circle.radius = 3
        #expect(counter.count == 1)
        #expect(holder.token?.isValid == false)
    }

    @Test func tokenBecomesInvalidWhenTheObjectDeinitialises() throws {
        var circle: Circle? = Circle()
        weak let weakCircle = circle
        let token = try circle!.observe(\.radius) { _, _ in }
        circle = nil
        #expect(weakCircle == nil)
        #expect(!token.isValid)
        token.invalidate()
    }

    @Test func tokenDoesNotKeepTheObserverOrObjectAlive() throws {
        weak var weakCircle: Circle?
        var token: KVOObservation?
        do {
            let circle = Circle()
            weakCircle = circle
            token = try circle.observe(\.radius) { _, _ in }
        }
        #expect(weakCircle == nil)
        #expect(token?.isValid == false)
    }

    @Test func bagInvalidatesAllItsTokensTogether() throws {
        let circle = Circle()
        let counter = CallCounter()
        let bag = KVOObservationBag()
        try circle.observe(\.radius) { _, _ in counter.increment() }.store(in: bag)
        try circle.observe(\.name) { _, _ in counter.increment() }.store(in: bag)
        try circle.observe(\.area) { _, _ in counter.increment() }.store(in: bag)
        #expect(bag.count == 3)
        circle.radius = 2
        #expect(counter.count == 2)
        bag.invalidateAll()
        circle.radius = 3
        circle.name = "x"
        #expect(counter.count == 2)
        #expect(bag.count == 0)
        #expect(circle.kvoRegistrar.registrationCount == 0)
    }

    @Test func droppingTheBagEndsItsTokens() throws {
        let circle = Circle()
        let counter = CallCounter()
        var bag: KVOObservationBag? = KVOObservationBag()
        try circle.observe(\.radius) { _, _ in counter.increment() }.store(in: bag!)
        bag = nil
        circle.radius = 2
        #expect(counter.count == 0)
    }

    @Test func tokenForAKeyPathReadingNothingObservableThrows() {
        let circle = Circle()
        #expect(throws: KVOError.self) {
            _ = try circle.observe(\.plainTag) { _, _ in }
        }
        #expect(circle.kvoRegistrar.registrationCount == 0)
    }

    @Test func tokensObserveChainsAndComputedProperties() throws {
        let person = Person(city: "Oslo")
        let recorder = Recorder<String>()
        let token = try person.observe(\.address.city, options: [.new]) { _, change in recorder.append(change) }
        person.address = Address(city: "Bergen")
        person.address.city = "Tromsø"
        #expect(recorder.changes.map(\.newValue) == ["Bergen", "Tromsø"])
        withExtendedLifetime(token) {}
    }
}

/// Keeps a token where its own callback can reach it.
final class TokenHolder: @unchecked Sendable {  // written once before any callback runs
    var token: KVOObservation?
}
