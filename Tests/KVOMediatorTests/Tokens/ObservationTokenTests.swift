import Foundation
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
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
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

    @Test func tokenDroppedInsideItsOwnCallbackReleasesTheCallbackOnReturn() throws {
        let circle = Circle()
        let counter = CallCounter()
        let holder = TokenHolder()
        weak var weakProbe: CapturedProbe?
        do {
            let probe = CapturedProbe()
            weakProbe = probe
            holder.token = try circle.observe(\.radius, options: [.prior, .old, .new]) { _, change in
                withExtendedLifetime(probe) {}
                counter.increment()
                // The prior record ends the registration: the change record of this set is not sent.
                if change.isPrior { holder.token = nil }
            }
        }
        #expect(weakProbe != nil)
        circle.radius = 2
        #expect(holder.token == nil)
        #expect(weakProbe == nil)
        circle.radius = 3
        #expect(counter.count == 1)
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
    }

    /// A registration whose last owner lets it go from inside another callback (where ending does not
    /// wait), while a callback of it runs on another thread: it stays alive, and keeps what its
    /// callback captured, until that callback returns; then both go, and nothing more is called.
    @Test func registrationEndedWhileItsCallbackRunsOnAnotherThreadOutlivesThatCallback() throws {
        let circle = Circle()
        let trigger = Circle()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let counter = CallCounter()
        let holder = TokenHolder()
        weak var weakProbe: CapturedProbe?
        do {
            let probe = CapturedProbe()
            weakProbe = probe
            holder.token = try circle.observe(\.borderWidth, options: [.new]) { _, _ in
                withExtendedLifetime(probe) {}
                counter.increment()
                entered.signal()
                proceed.wait()
            }
        }
        let writer = TestThread { circle.borderWidth = 1 }
        entered.wait()
        let ender = try trigger.observe(\.radius) { _, _ in holder.token = nil }
        trigger.radius = 2
        #expect(holder.token == nil)
        #expect(weakProbe != nil)
        proceed.signal()
        #expect(writer.join())
        #expect(weakProbe == nil)
        circle.borderWidth = 2
        #expect(counter.count == 1)
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
        withExtendedLifetime(ender) {}
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
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
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
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
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
final class TokenHolder: @unchecked Sendable {  // `stored` is guarded by `lock`
    private let lock = NSLock()
    private var stored: KVOObservation?

    var token: KVOObservation? {
        get { lock.withLock { stored } }
        set {
            // The old token is released outside the lock: its deinit ends the registration.
            let old = lock.withLock {
                defer { stored = newValue }
                return stored
            }
            withExtendedLifetime(old) {}
        }
    }
}

/// Something a callback captures, to see when the library lets go of its callbacks.
final class CapturedProbe: Sendable {}
