import Testing

@testable import KVOMediator

/// The registration gate's state machine, driven directly through every transition.
@Suite struct RegistrationGateTests {
    @Test func aRegistrationGoesFromInitialToObservingToNotObserving() {
        var gate = RegistrationGate()
        #expect(gate.phase == .initial)
        gate = gate.starting()
        #expect(gate.phase == .observing)
        let (cancelled, action) = gate.cancelling()
        #expect(cancelled.phase == .notObserving)
        #expect(action == .unsubscribe)
        #expect(cancelled.cancelling().1 == .none)  // a second cancel has nothing to unsubscribe
    }

    @Test func aRegistrationCancelledBeforeItStartedIsNotObserving() {
        let (cancelled, action) = RegistrationGate().cancelling()
        #expect(cancelled.phase == .notObserving)
        #expect(action == .unsubscribe)
    }

    @Test func callbacksEnterUntilCancelledAndAreCounted() throws {
        let gate = RegistrationGate().starting()
        guard case .enter(let one) = gate.entering(), case .enter(let two) = one.entering() else {
            Issue.record("an observing gate refused a callback")
            return
        }
        #expect(two.inFlight == 2)
        let (left, exit) = two.leaving()
        #expect(left.inFlight == 1)
        #expect(exit == .none)
        #expect(left.cancelling().0.entering() == .refuse)
    }

    @Test func aDyingRegistrarsTeardownEntersEvenACancelledGate() {
        let cancelled = RegistrationGate().starting().cancelling().0
        let entered = cancelled.enteringForTeardown()
        #expect(entered.inFlight == 1)
        #expect(entered.isCancelled)
    }

    @Test func aCancellerWithNoCallbackInFlightReleasesNow() {
        let cancelled = RegistrationGate().starting().cancelling().0
        #expect(cancelled.holding() == .releaseNow)
        let (released, isFirst) = cancelled.releasing()
        #expect(isFirst)
        #expect(released.isReleased)
        #expect(!released.releasing().isFirst)  // released once only
    }

    @Test func aCancellerInsideACallbackLeavesTheReleaseToTheLastThreadOut() throws {
        guard case .enter(let inCallback) = RegistrationGate().starting().entering(),
            case .enter(let twoIn) = inCallback.entering()
        else {
            Issue.record("an observing gate refused a callback")
            return
        }
        let cancelled = twoIn.cancelling().0
        guard case .hold(let held) = cancelled.holding() else {
            Issue.record("a callback in flight did not hold the release")
            return
        }
        #expect(held.holdsRelease)
        #expect(held.holding() == .alreadyHeld)  // a second canceller adds no retain
        let (oneLeft, firstExit) = held.leaving()
        #expect(firstExit == .none)
        #expect(oneLeft.claimingHold() == nil)  // one still in flight: the last of them claims it
        let (noneLeft, lastExit) = oneLeft.leaving()
        #expect(lastExit == .releaseHeld)
        let claimed = try #require(noneLeft.claimingHold())
        #expect(!claimed.holdsRelease)
        #expect(claimed.claimingHold() == nil)  // a racing teardown finds it claimed
        #expect(claimed.releasing().isFirst)
    }

    @Test func aPassIntoTheGateCountsAsACallbackInFlight() throws {
        let cancelled = RegistrationGate().starting().cancelling().0
        guard case .hold(let held) = cancelled.holding(passesHeld: true) else {
            Issue.record("a pass into the gate did not hold the release")
            return
        }
        #expect(held.inFlight == 0)
        #expect(held.holding(passesHeld: true) == .alreadyHeld)
        // Once the pass is given back, no callback is in flight: its holder claims the release.
        let claimed = try #require(held.claimingHold())
        #expect(claimed.releasing().isFirst)
    }

    @Test func directnessIsAFlagBesideTheState() {
        let gate = RegistrationGate().markingDirect().starting()
        #expect(gate.isDirect)
        #expect(gate.phase == .observing)
        #expect(!RegistrationGate().isDirect)
    }

    @Test func leavingAGateNobodyIsInStops() async {
        await #expect(processExitsWith: .failure) { _ = RegistrationGate().starting().leaving() }
    }

    @Test func startingTwiceStops() async {
        await #expect(processExitsWith: .failure) { _ = RegistrationGate().starting().starting() }
    }

    @Test func releasingOrHoldingTheCallbacksOfAnObservingRegistrationStops() async {
        await #expect(processExitsWith: .failure) { _ = RegistrationGate().starting().releasing() }
        await #expect(processExitsWith: .failure) { _ = RegistrationGate().starting().holding() }
    }
}
