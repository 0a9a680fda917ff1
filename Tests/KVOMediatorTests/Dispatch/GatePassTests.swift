import Foundation
import Synchronization
import Testing

@testable import KVOMediator

/// Gate passes (`GatePasses`): a direct registration's callback, entered under its registrar's lock
/// through the thread's pass instead of the gate's count, keeps every contract of the gate.
@Suite struct GatePassTests {
    @Test(.enabled(if: GatePasses.areOn))
    func aDirectCallbackRunsInsideItsThreadsPassNotTheGatesCount() throws {
        let circle = Circle()
        let slot = TokenSlot()
        let seen = Mutex<[(holders: UInt8, inFlight: Int)]>([])
        slot.token = try circle.observe(\.radius) { _, _ in
            guard let info = slot.token?.info else { return }
            let inFlight = RegistrationGate(rawValue: info.gate.load(ordering: .acquiring)).inFlight
            seen.withLock { $0.append((SwiftRuntime.gatePassHolders(info).rawValue, inFlight)) }
        }
        circle.radius = 2
        let info = try #require(slot.token?.info)
        #expect(SwiftRuntime.gatePassHolders(info).isEmpty)  // given back
        seen.withLock { seen in
            #expect(seen.count == 1)
            #expect(seen.first?.holders == GatePasses.Holders.thisThread.rawValue)
            #expect(seen.first?.inFlight == 0)
        }
        slot.token?.invalidate()
    }

    @Test(.enabled(if: GatePasses.areOn))
    func aChainsLeafCallbackRunsInsideItsThreadsPassAndALinksInsideTheCount() throws {
        let person = Person()
        let slot = TokenSlot()
        let seen = Mutex<[(city: String?, holders: UInt8)]>([])
        slot.token = try person.observe(\.address.city) { _, change in
            guard let info = slot.token?.info else { return }
            seen.withLock { $0.append((change.newValue, SwiftRuntime.gatePassHolders(info).rawValue)) }
        }
        person.address.city = "Paris"  // the leaf: the setter's own values, through the pass
        person.address = Address(city: "Rome")  // a link: read again, counted in the gate
        seen.withLock { seen in
            #expect(seen.map(\.city) == ["Paris", "Rome"])
            #expect(seen.map(\.holders) == [GatePasses.Holders.thisThread.rawValue, 0])
        }
        slot.token?.invalidate()
    }

    @Test func aCallbackSettingItsOwnPropertyAgainNestsThroughTheGatesCount() throws {
        let circle = Circle()
        let values = Mutex<[Double]>([])
        let token = try circle.observe(\.radius) { circle, change in
            values.withLock { $0.append(change.newValue ?? -1) }
            if change.newValue == 2 { circle.radius = 3 }  // the thread's pass is taken: counted instead
        }
        circle.radius = 2
        #expect(values.withLock { $0 } == [2, 3])
        token.invalidate()
    }

    @Test func invalidatingInsideItsOwnCallbackReleasesTheBlockOnceTheCallbackReturns() throws {
        let circle = Circle()
        let slot = TokenSlot()
        weak var weakCanary: Canary?
        let aliveInside = Mutex<Bool?>(nil)
        do {
            let canary = Canary()
            weakCanary = canary
            slot.token = try circle.observe(\.radius) { _, _ in
                withExtendedLifetime(canary) {}
                slot.token?.invalidate()
                aliveInside.withLock { $0 = true }  // the block (and what it captures) is still here
            }
        }
        #expect(weakCanary != nil)
        circle.radius = 2
        #expect(aliveInside.withLock { $0 } == true)
        #expect(weakCanary == nil)
        circle.radius = 3  // invalidated: nothing runs
        slot.token = nil
    }

    @Test func anInvalidationOnAnotherThreadWaitsForACallbackInFlight() throws {
        let circle = Circle()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let finished = Atomic<Bool>(false)
        let calls = Atomic<Int>(0)
        let token = try circle.observe(\.radius) { _, _ in
            calls.add(1, ordering: .relaxed)
            entered.signal()
            proceed.wait()
            finished.store(true, ordering: .releasing)
        }
        let setter = TestThread { circle.radius = 2 }
        entered.wait()
        let returned = Atomic<Bool>(false)
        let finishedWhenItReturned = Atomic<Bool>(false)
        let canceller = TestThread {
            token.invalidate()
            finishedWhenItReturned.store(finished.load(ordering: .acquiring), ordering: .relaxed)
            returned.store(true, ordering: .releasing)
        }
        Thread.sleep(forTimeInterval: 0.05)
        let returnedEarly = returned.load(ordering: .acquiring)
        #expect(!returnedEarly)  // still waiting for the callback
        proceed.signal()
        setter.join()
        canceller.join()
        let callbackHadFinished = finishedWhenItReturned.load(ordering: .relaxed)
        #expect(callbackHadFinished)
        circle.radius = 3
        let callCount = calls.load(ordering: .relaxed)
        #expect(callCount == 1)
    }

    @Test func twoInvalidationsAtOnceOnOtherThreadsBothWaitForACallbackInFlight() throws {
        let circle = Circle()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let finished = Atomic<Bool>(false)
        let token = try circle.observe(\.radius) { _, _ in
            entered.signal()
            proceed.wait()
            finished.store(true, ordering: .releasing)
        }
        let setter = TestThread { circle.radius = 2 }
        entered.wait()
        // The second to cancel finds it cancelled by the first, which may still be unsubscribing it.
        let returned = Atomic<Int>(0)
        let sawFinished = Atomic<Int>(0)
        let cancellers = (0..<2).map { _ in
            TestThread {
                token.invalidate()
                if finished.load(ordering: .acquiring) { sawFinished.add(1, ordering: .relaxed) }
                returned.add(1, ordering: .releasing)
            }
        }
        Thread.sleep(forTimeInterval: 0.05)
        let returnedEarly = returned.load(ordering: .acquiring)
        #expect(returnedEarly == 0)
        proceed.signal()
        setter.join()
        for canceller in cancellers { canceller.join() }
        let finishedForBoth = sawFinished.load(ordering: .relaxed)
        #expect(finishedForBoth == 2)
    }

    @Test func anInvalidationInsideAnotherCallbackLeavesTheReleaseToTheThreadStillInTheCallback() throws {
        let circle = Circle()
        let trigger = Circle()
        let held = try HeldCallback(observing: circle)
        let canaryAliveWhileRunning = Atomic<Bool>(false)
        // Another registration whose callback invalidates the first: it must not wait (inside a callback).
        let invalidator = try trigger.observe(\.radius) { _, _ in held.slot.token?.invalidate() }
        let setter = TestThread { circle.radius = 2 }
        held.entered.wait()
        trigger.radius = 2  // returns although the other thread is still in the callback
        canaryAliveWhileRunning.store(held.canary != nil, ordering: .relaxed)
        held.proceed.signal()
        setter.join()
        let aliveWhileRunning = canaryAliveWhileRunning.load(ordering: .relaxed)
        #expect(aliveWhileRunning)
        #expect(held.canary == nil)  // released by the thread that was in the callback, once out
        invalidator.invalidate()
        held.slot.token = nil
    }

    @Test func aThreadSettingWhileRegistrationsComeAndGoDeliversNothingAfterAnInvalidationReturns() throws {
        let circle = Circle()
        let stop = Atomic<Bool>(false)
        // (One setter: two threads setting one property at once would race on its storage.)
        let setter = TestThread {
            var value = 1.0
            while !stop.load(ordering: .relaxed) {
                value += 1
                circle.radius = value
            }
        }
        for _ in 0..<300 {
            let afterInvalidation = Atomic<Bool>(false)
            let late = Atomic<Int>(0)
            weak var weakCanary: Canary?
            do {
                let canary = Canary()
                weakCanary = canary
                let token = try circle.observe(\.radius) { _, _ in
                    withExtendedLifetime(canary) {}
                    if afterInvalidation.load(ordering: .acquiring) { late.add(1, ordering: .relaxed) }
                }
                Thread.sleep(forTimeInterval: 0.0002)
                token.invalidate()
                afterInvalidation.store(true, ordering: .releasing)
            }
            let lateCalls = late.load(ordering: .relaxed)
            #expect(lateCalls == 0)
            #expect(weakCanary == nil)
        }
        stop.store(true, ordering: .relaxed)
        setter.join()
    }

    #if DEBUG
    /// A thread giving its pass back still reads the gate: whoever ends the registration meanwhile must not
    /// let it go under that thread. (Debug builds pause the chosen thread there; one test at a time.)
    @Suite(.serialized) struct GivingAPassBack {
        @Test(.enabled(if: GatePasses.areOn))
        func anInvalidationWaitsForAThreadStillGivingItsPassBack() throws {
            let circle = Circle()
            weak var weakCanary: Canary?
            var token: KVOObservation?
            do {
                let canary = Canary()
                weakCanary = canary
                token = try circle.observe(\.radius) { _, _ in withExtendedLifetime(canary) {} }
            }
            let setter = TestThread {
                GatePasses.pauseThisThread(at: .givingPassBack, milliseconds: 100)
                circle.radius = 2
            }
            try Self.waitUntilPaused()
            token?.invalidate()
            let stageWhenItReturned = GatePasses.pauseStage
            #expect(stageWhenItReturned == .resumed)
            #expect(weakCanary == nil)
            setter.join()
            token = nil
        }

        @Test(.enabled(if: GatePasses.areOn))
        func anInvalidationInsideAnotherCallbackWaitsOutAPassBeingGivenBackAndReleasesTheBlock() throws {
            let circle = Circle()
            let trigger = Circle()
            let slot = TokenSlot()
            weak var weakCanary: Canary?
            do {
                let canary = Canary()
                weakCanary = canary
                slot.token = try circle.observe(\.radius) { _, _ in withExtendedLifetime(canary) {} }
            }
            let stageWhenInvalidated = Atomic<Int>(0)
            // Inside a callback: it does not wait for callbacks in flight, only for the pass being given back.
            let invalidator = try trigger.observe(\.radius) { _, _ in
                slot.token?.invalidate()
                stageWhenInvalidated.store(GatePasses.pauseStage.rawValue, ordering: .relaxed)
            }
            let setter = TestThread {
                GatePasses.pauseThisThread(at: .givingPassBack, milliseconds: 100)
                circle.radius = 2
            }
            try Self.waitUntilPaused()
            trigger.radius = 2
            let stage = stageWhenInvalidated.load(ordering: .relaxed)
            #expect(stage == GatePasses.PauseStage.resumed.rawValue)
            // Released by whichever of the two threads was the last out: the setter may be, after its pass is
            // given back, and then it releases it on its way out of `circle.radius = 2`.
            setter.join()
            #expect(weakCanary == nil)
            invalidator.invalidate()
            slot.token = nil
        }

        @Test(.enabled(if: GatePasses.areOn))
        func aPassTradedForACountWhileTheLastOneOutReadsThePassesStillGetsTheBlockReleased() throws {
            let circle = Circle()
            let trigger = Circle()
            let held = try HeldCallback(observing: circle)
            // Inside a callback: the invalidation leaves the release to the last thread out, which is this
            // one; it reads the setter's pass as held, and pauses before it leaves.
            let invalidator = try trigger.observe(\.radius) { _, _ in
                GatePasses.pauseThisThread(at: .leavingLastAfterReadingPasses, milliseconds: 200)
                held.slot.token?.invalidate()
            }
            let setter = TestThread { circle.radius = 2 }
            held.entered.wait()
            // Meanwhile the setter's callback returns: it finds the release held and trades its pass for a
            // count, which leaves before this thread does.
            let resumer = TestThread {
                let deadline = Date().addingTimeInterval(10)
                while GatePasses.pauseStage != .paused, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
                held.proceed.signal()
            }
            trigger.radius = 2
            resumer.join()
            setter.join()
            #expect(held.canary == nil)  // released by this thread, which read the passes again
            invalidator.invalidate()
            held.slot.token = nil
        }

        private static func waitUntilPaused() throws {
            let deadline = Date().addingTimeInterval(10)
            while GatePasses.pauseStage != .paused, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
            try #require(GatePasses.pauseStage == .paused)
        }
    }
    #endif
}
