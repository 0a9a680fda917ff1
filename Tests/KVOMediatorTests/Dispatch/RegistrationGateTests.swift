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
        guard case .leave(let left) = two.leaving() else {
            Issue.record("a callback could not leave an observing gate")
            return
        }
        #expect(left.inFlight == 1)
        #expect(left.cancelling().0.entering() == .refuse)
    }

    @Test func aThreadThatMustNotBeReleasedUnderCountsInEvenToACancelledGate() {
        let cancelled = RegistrationGate().starting().cancelling().0
        let entered = cancelled.countingIn()
        #expect(entered.inFlight == 1)
        #expect(entered.isCancelled)
    }

    @Test func theCallbacksAreReleasedOnce() {
        let cancelled = RegistrationGate().starting().cancelling().0
        let (released, isFirst) = cancelled.releasing()
        #expect(isFirst)
        #expect(released.isReleased)
        #expect(!released.releasing().isFirst)  // released once only
    }

    @Test func aCancellerInsideACallbackLeavesTheReleaseToTheLastThreadOut() throws {
        guard case .enter(let inCallback) = RegistrationGate().starting().entering() else {
            Issue.record("an observing gate refused a callback")
            return
        }
        // The canceller counts itself in, leaves the release with a retain, and leaves.
        let cancellerIn = inCallback.cancelling().0.countingIn()
        let held = try #require(cancellerIn.holdingRelease())
        #expect(held.holdsRelease)
        #expect(held.holdingRelease() == nil)  // a second canceller adds no retain
        guard case .leave(let oneLeft) = held.leaving() else {
            Issue.record("one of two threads in had to read the passes to leave")
            return
        }
        #expect(oneLeft.holdsRelease)  // one still in flight: the last of them claims it
        #expect(oneLeft.leaving() == .readPassesFirst)
        let (claimed, claims) = oneLeft.leaving(passesHeld: false)
        #expect(claims)
        #expect(claimed.inFlight == 0)
        #expect(!claimed.holdsRelease)  // claimed in the step that leaves: nobody else can
        #expect(claimed.releasing().isFirst)
    }

    @Test func theLastThreadCountedInLeavesTheReleaseToAPassStillHeld() throws {
        let cancellerIn = RegistrationGate().starting().cancelling().0.countingIn()
        let held = try #require(cancellerIn.holdingRelease())
        #expect(held.leaving() == .readPassesFirst)
        let (left, claims) = held.leaving(passesHeld: true)
        #expect(!claims)
        #expect(left.inFlight == 0)
        #expect(left.holdsRelease)
        // The pass's holder, giving it back, finds the release held: it counts in, and leaves as the last.
        let traded = left.tradingPassForCount()
        #expect(traded.inFlight == 1)
        #expect(traded.leaving() == .readPassesFirst)
        let unmarked = try #require(traded.clearingTradedMark())
        #expect(unmarked.clearingTradedMark() == nil)
        let (claimed, claimsNow) = unmarked.leaving(passesHeld: false)
        #expect(claimsNow)
        #expect(!claimed.holdsRelease)
    }

    @Test func aPassTradedForACountWhileTheLastOneOutReadsThePassesChangesTheWordItLeavesFrom() throws {
        // The last one out (a canceller, counted in) has read a pass as held, and will leave from `read`.
        let read = try #require(RegistrationGate().starting().cancelling().0.countingIn().holdingRelease())
        // Meanwhile the pass's holder trades it for a count, and leaves: it is not the last.
        guard case .leave(let afterTrade) = read.tradingPassForCount().leaving() else {
            Issue.record("a thread traded in beside the last one had to read the passes to leave")
            return
        }
        #expect(afterTrade.inFlight == read.inFlight)
        #expect(afterTrade != read)  // so the last one's step from `read` fails, and it reads the passes again
        let unmarked = try #require(afterTrade.clearingTradedMark())
        #expect(unmarked == read)
        #expect(unmarked.leaving(passesHeld: false).claimsRelease)
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
        await #expect(processExitsWith: .failure) { _ = RegistrationGate().starting().countingIn().holdingRelease() }
    }
}
