import Dispatch
import Foundation
import KVOMediator
import KVOMediatorTesting
import Synchronization
import Testing

/// The test kit's recorder: exact records from every form, waits that let queued deliveries run, and
/// timeouts that say what they waited for. (One test at a time: one of them blocks the main queue, which
/// every wait hops through.)
@Suite(.serialized) struct KVORecorderTests {
    @Test func aRecorderOfItsOwnRecordsEachChangeExactly() throws {
        let thermostat = Thermostat()
        let recorder = try KVORecorder(thermostat, \.temperature, options: [.old, .new, .prior])
        thermostat.temperature = 21
        #expect(
            recorder.changes == [
                KVOChange(oldValue: 20, isPrior: true, keyPath: \Thermostat.temperature),
                KVOChange(oldValue: 20, newValue: 21, keyPath: \Thermostat.temperature),
            ]
        )
        #expect(recorder.newValues == [nil, 21])
    }

    @Test func nextReturnsEachRecordOnceInOrder() async throws {
        let thermostat = Thermostat()
        let recorder = try KVORecorder(thermostat, \.temperature)
        thermostat.temperature = 21
        thermostat.temperature = 22
        #expect(try await recorder.next().newValue == 21)
        #expect(try await recorder.next().newValue == 22)
        let thread = Thread { thermostat.temperature = 23 }
        thread.start()
        #expect(try await recorder.next() == KVOChange(oldValue: 22, newValue: 23, keyPath: \Thermostat.temperature))
    }

    @Test func waitingLetsAQueueDeliveryRun() async throws {
        let thermostat = Thermostat()
        let panel = Panel()
        let recorder = KVORecorder<Int>()
        let queue = DispatchQueue(label: "KVOMediatorTestingTests.work")
        panel.kvoController.observe(thermostat, keyPath: \.temperature, options: [.old, .new], delivery: .queue(queue))
        {
            _,
            change in recorder.record(change)
        }
        queue.suspend()
        thermostat.temperature = 25
        #expect(recorder.count == 0)
        queue.resume()
        let records = try await recorder.waitFor(1)
        #expect(records == [KVOChange(oldValue: 20, newValue: 25, keyPath: \Thermostat.temperature)])
        withExtendedLifetime(panel) {}
    }

    @Test func waitingLetsAMainActorDeliveryRun() async throws {
        let thermostat = Thermostat()
        let panel = Panel()
        let recorder = KVORecorder<String>()
        panel.kvoController.observe(thermostat, keyPath: \.mode, options: [.new], delivery: .mainActor) { _, change in
            recorder.record(change)
        }
        let thread = Thread { thermostat.mode = "heat" }
        thread.start()
        let records = try await recorder.waitFor(1)
        #expect(records == [KVOChange(newValue: "heat", keyPath: \Thermostat.mode)])
        withExtendedLifetime(panel) {}
    }

    @Test func aCoalescedDeliveryIsWaitedForToo() async throws {
        let thermostat = Thermostat()
        let panel = Panel()
        let recorder = KVORecorder<Int>()
        let queue = DispatchQueue(label: "KVOMediatorTestingTests.coalesced")
        let delivery = KVOQueueDelivery.queue(queue, coalescing: .latest)
        panel.kvoController.observe(thermostat, keyPath: \.temperature, options: [.old, .new], delivery: delivery) {
            _,
            change in recorder.record(change)
        }
        queue.suspend()
        for value in 21...30 { thermostat.temperature = value }
        queue.resume()
        try await settleKVODeliveries()
        #expect(recorder.changes == [KVOChange(oldValue: 20, newValue: 30, keyPath: \Thermostat.temperature)])
        withExtendedLifetime(panel) {}
    }

    @Test func settlingFollowsDeliveriesThatCallbacksQueueToTheEndOfTheChain() async throws {
        let thermostats = (0..<5).map { _ in Thermostat() }
        let panel = Panel()
        let work = DispatchQueue(label: "KVOMediatorTestingTests.chain")
        let recorder = KVORecorder<Int>()
        // 0 → 1 on a queue, 1 → 2 on the main actor, 2 → 3 on the queue after a pause, 3 → 4 on the queue;
        // 4 recorded on the queue.
        for index in 0..<4 {
            let next = thermostats[index + 1]
            if index == 1 {
                panel.kvoController.observe(thermostats[index], keyPath: \.temperature, delivery: .mainActor) {
                    _,
                    change in next.temperature = change.newValue!
                }
            } else {
                panel.kvoController.observe(thermostats[index], keyPath: \.temperature, delivery: .queue(work)) {
                    _,
                    change in
                    if index == 2 { Thread.sleep(forTimeInterval: 0.05) }
                    next.temperature = change.newValue!
                }
            }
        }
        panel.kvoController.observe(thermostats[4], keyPath: \.temperature, delivery: .queue(work)) { _, change in
            recorder.record(change)
        }
        thermostats[0].temperature = 30
        try await settleKVODeliveries()
        #expect(recorder.changes == [KVOChange(newValue: 30, keyPath: \Thermostat.temperature)])
        // (Until here: a release build may otherwise end them after their last use, and so the registrations.)
        withExtendedLifetime((panel, thermostats)) {}
    }

    @Test func settlingFollowsAChainWhoseCallbacksChangeInsideAnotherQueuesSync() async throws {
        let thermostats = (0..<4).map { _ in Thermostat() }
        let panel = Panel()
        let work = DispatchQueue(label: "KVOMediatorTestingTests.syncChain")
        let state = DispatchQueue(label: "KVOMediatorTestingTests.syncChain.state")
        let recorder = KVORecorder<Int>()
        for index in 0..<3 {
            let next = thermostats[index + 1]
            panel.kvoController.observe(thermostats[index], keyPath: \.temperature, delivery: .queue(work)) {
                _,
                change in
                Thread.sleep(forTimeInterval: 0.02)
                state.sync { next.temperature = change.newValue! }  // (run on the delivery's thread)
            }
        }
        panel.kvoController.observe(thermostats[3], keyPath: \.temperature, delivery: .queue(work)) { _, change in
            recorder.record(change)
        }
        thermostats[0].temperature = 30
        try await settleKVODeliveries()
        #expect(recorder.changes == [KVOChange(newValue: 30, keyPath: \Thermostat.temperature)])
        withExtendedLifetime((panel, thermostats)) {}
    }

    @Test func settlingIsNotHeldUpByAChainAnotherThreadBeginsMeanwhile() async throws {
        let ping = Thermostat()
        let pong = Thermostat()
        let panel = Panel()
        let other = DispatchQueue(label: "KVOMediatorTestingTests.pingPong")
        let steps = Mutex(0)
        for (from, to) in [(ping, pong), (pong, ping)] {
            panel.kvoController.observe(from, keyPath: \.temperature, delivery: .queue(other)) { _, change in
                Thread.sleep(forTimeInterval: 0.001)
                let step = steps.withLock {
                    $0 += 1
                    return $0
                }
                if step < 2_000 { to.temperature = change.newValue! + 1 }
            }
        }
        // Another test's chain, begun once this wait has begun (its epoch is past the one before it): 2,000
        // steps of a millisecond or more.
        let mine = Thermostat()
        let recorder = KVORecorder<Int>()
        let before = _kvoSettlingEpoch()
        panel.kvoController.observe(mine, keyPath: \.temperature, delivery: .queue(other)) { _, change in
            while _kvoSettlingEpoch() == before { Thread.sleep(forTimeInterval: 0.001) }
            recorder.record(change)
            Thread { ping.temperature = 1 }.start()
        }
        mine.temperature = 7
        try await settleKVODeliveries()
        // (Returned while the other chain goes on: a wait that followed it would have returned at its end.)
        let stepsWhenSettled = steps.withLock { $0 }
        #expect(stepsWhenSettled < 2_000)
        #expect(recorder.changes == [KVOChange(newValue: 7, keyPath: \Thermostat.temperature)])
        steps.withLock { $0 = 2_000 }  // (ends the other chain)
        try await settleKVODeliveries()
        withExtendedLifetime((panel, mine, ping, pong)) {}
    }

    @Test func settlingIsNotHeldUpByDeliveriesAnotherThreadKeepsQueueing() async throws {
        let thermostat = Thermostat()
        let panel = Panel()
        let work = DispatchQueue(label: "KVOMediatorTestingTests.busy")
        let delivered = KVORecorder<Int>()
        panel.kvoController.observe(thermostat, keyPath: \.temperature, delivery: .queue(work)) { _, change in
            Thread.sleep(forTimeInterval: 0.001)
            delivered.record(change)
        }
        let producing = Mutex(true)
        let producer = Thread {
            var value = 0
            while producing.withLock({ $0 }) {
                value += 1
                thermostat.temperature = value
                Thread.sleep(forTimeInterval: 0.0005)
            }
        }
        producer.start()
        try await Task.sleep(for: .milliseconds(20))
        let start = ContinuousClock.now
        try await settleKVODeliveries(timeout: .seconds(5))
        let waited = ContinuousClock.now - start
        producing.withLock { $0 = false }
        #expect(delivered.count > 0)
        #expect(waited < .seconds(5))
        withExtendedLifetime(panel) {}
    }

    @Test func aWaitThatRunsOutOfTimeThrowsWhatItWaitedForAndWhatCame() async throws {
        let thermostat = Thermostat()
        let recorder = try KVORecorder(thermostat, \.temperature)
        thermostat.temperature = 21
        let error = await #expect(throws: KVOTestTimeout.self) {
            try await recorder.waitFor(2, timeout: .milliseconds(50))
        }
        #expect(error?.expected == 2)
        #expect(error?.received == 1)
        #expect(error?.mainActorRan == true)
        #expect(error?.description.contains("waited") == true)
        #expect(try await recorder.next().newValue == 21)
        await #expect(throws: KVOTestTimeout.self) { try await recorder.next(timeout: .milliseconds(20)) }
    }

    @Test func aBlockedMainActorIsNamedInTheTimeout() async throws {
        let thermostat = Thermostat()
        let panel = Panel()
        panel.kvoController.observe(thermostat, keyPath: \.mode, options: [.new], delivery: .mainActor) { _, _ in }
        let released = blockMainQueue()
        thermostat.mode = "heat"  // queued to the blocked main actor
        let error = await #expect(throws: KVOTestTimeout.self) {
            try await settleKVODeliveries(timeout: .milliseconds(50))
        }
        released.signal()
        #expect(error?.mainActorRan == false)
        #expect(error?.description.contains("is the main thread blocked") == true)
        try await settleKVODeliveries()
        withExtendedLifetime(panel) {}
    }

    @Test func aBlockedMainActorDoesNotHoldUpAWaitForQueueDeliveries() async {
        // (In a process of its own: another suite's main-actor delivery, queued while the main queue is
        // blocked here, would be waited for, rightly.)
        await #expect(processExitsWith: .success) {
            let thermostat = Thermostat()
            let panel = Panel()
            let recorder = KVORecorder<Int>()
            let queue = DispatchQueue(label: "KVOMediatorTestingTests.settle")
            panel.kvoController.observe(thermostat, keyPath: \.temperature, options: [.new], delivery: .queue(queue)) {
                _,
                change in recorder.record(change)
            }
            // (A main queue that does not run at all is as blocked.)
            let released = blockMainQueue(waitingAtMost: 2)
            defer { released.signal() }
            thermostat.temperature = 21
            do {
                try await settleKVODeliveries(timeout: .seconds(5))
            } catch {
                exit(3)
            }
            if recorder.changes != [KVOChange(newValue: 21, keyPath: \Thermostat.temperature)] { exit(4) }
            withExtendedLifetime(panel) {}
        }
    }

    @Test func aStreamIsRecordedAsItYields() async throws {
        let thermostat = Thermostat()
        let recorder = KVORecorder<Int>()
        recorder.record(from: try thermostat.changes(for: \.temperature, options: [.old, .new]))
        thermostat.temperature = 21
        thermostat.temperature = 22
        let records = try await recorder.waitFor(2)
        #expect(
            records == [
                KVOChange(oldValue: 20, newValue: 21, keyPath: \Thermostat.temperature),
                KVOChange(oldValue: 21, newValue: 22, keyPath: \Thermostat.temperature),
            ]
        )
        recorder.stop()
        try await settleKVODeliveries()
        thermostat.temperature = 23
        try await Task.sleep(for: .milliseconds(20))
        #expect(recorder.count == 2)
    }

    @Test func nothingTheStreamBufferedIsRecordedAfterStop() async throws {
        let thermostat = Thermostat()
        let recorder = KVORecorder<Int>()
        recorder.record(from: try thermostat.changes(for: \.temperature))
        for value in 21...23 { thermostat.temperature = value }
        recorder.stop()
        let atStop = recorder.count
        try await Task.sleep(for: .milliseconds(50))
        #expect(recorder.count == atStop)
        // A consumer that another replaced records nothing more either.
        let replaced = KVORecorder<Int>()
        replaced.record(from: try thermostat.changes(for: \.temperature))
        for value in 24...26 { thermostat.temperature = value }
        replaced.record(from: try Thermostat().changes(for: \.temperature))
        let atReplace = replaced.count
        thermostat.temperature = 27
        try await Task.sleep(for: .milliseconds(50))
        #expect(replaced.count == atReplace)
    }

    @Test func theHandlerRecordsFromAnyFormAStringKeyPathsToo() throws {
        let thermostat = Thermostat()
        let panel = Panel()
        let typed = KVORecorder<Int>()
        let byName = KVORecorder<Any>()
        panel.kvoController.observe(thermostat, keyPath: \.temperature, options: [.new]) { _, _, change in
            typed.handler(change)
        }
        try panel.kvoController.observe(thermostat, keyPath: "mode", options: [.new]) { _, _, change in
            byName.handler(change)
        }
        thermostat.temperature = 18
        thermostat.mode = "cool"
        #expect(typed.changes == [KVOChange(newValue: 18, keyPath: \Thermostat.temperature)])
        #expect(byName.newValues.map { $0 as? String } == ["cool"])
        withExtendedLifetime(panel) {}
    }

    @Test func stopEndsTheRecordersRegistrationAndReleasingItDoesToo() throws {
        let thermostat = Thermostat()
        let recorder = try KVORecorder(thermostat, \.temperature)
        #expect(thermostat.kvoRegistrar.registrationCount == 1)
        recorder.stop()
        thermostat.temperature = 21
        #expect(recorder.count == 0)
        #expect(thermostat.kvoRegistrar.registrationCount == 0)
        var released: KVORecorder<Int>? = try KVORecorder(thermostat, \.temperature)
        weak let gone = released
        #expect(thermostat.kvoRegistrar.registrationCount == 1)
        released = nil
        #expect(gone == nil)
        #expect(thermostat.kvoRegistrar.registrationCount == 0)
    }

    @Test func removeAllForgetsTheRecordsSoFar() async throws {
        let thermostat = Thermostat()
        let recorder = try KVORecorder(thermostat, \.temperature)
        thermostat.temperature = 21
        recorder.removeAll()
        thermostat.temperature = 22
        #expect(recorder.changes == [KVOChange(oldValue: 21, newValue: 22, keyPath: \Thermostat.temperature)])
        #expect(try await recorder.next().newValue == 22)
    }
}

/// Blocks the main queue (the main actor's) until the returned semaphore is signalled; returns once the
/// block runs, or after `seconds` if given.
private func blockMainQueue(waitingAtMost seconds: Double? = nil) -> DispatchSemaphore {
    let blocked = DispatchSemaphore(value: 0)
    let released = DispatchSemaphore(value: 0)
    DispatchQueue.main.async {
        blocked.signal()
        released.wait()
    }
    if let seconds {
        _ = blocked.wait(timeout: .now() + seconds)
    } else {
        blocked.wait()
    }
    return released
}
