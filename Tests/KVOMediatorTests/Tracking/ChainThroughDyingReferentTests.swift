import Foundation
import KVOMediator
import Testing

/// A chain through a weak link whose referent changes itself while it deinitialises: the link already
/// reads nil then, so the chain's value never was the change's new value. Only the referent's death
/// is delivered (as nil), never the value set in its deinit.
@Suite struct ChainThroughDyingReferentTests {
    @Test func aControllerOfTheChainGetsOnlyTheDeathNotTheDeinitsWrite() {
        let console = FarewellConsole()
        let observer = TestObserver()
        let recorder = recordChanges(of: console, \.agent?.status, by: observer)
        var agent: FarewellAgent? = FarewellAgent()
        console.agent = agent
        agent!.status = "busy"
        agent = nil
        #expect(
            recorder.changes.map { [$0.oldValue ?? nil, $0.newValue ?? nil] } == [
                [nil, "idle"], ["idle", "busy"], [nil, nil],
            ]
        )
        #expect(recorder.changes.allSatisfy { $0.kind == .setting && !$0.isPrior })
    }

    @Test func aTokenWithPriorRecordsGetsNothingOfTheDeinitsWrite() throws {
        let console = FarewellConsole()
        let recorder = Recorder<String?>()
        let agent = FarewellAgent()
        console.agent = agent
        let token = try console.observe(\.agent?.status, options: [.new, .prior]) { _, change in
            recorder.append(change)
        }
        withExtendedLifetime(agent) {}
        // `agent` goes here, as the test's last use of it has passed.
        _ = consume agent
        #expect(recorder.changes.map { $0.newValue ?? nil } == [nil, nil])
        #expect(recorder.changes.map(\.isPrior) == [true, false])
        token.invalidate()
    }

    @Test func aStreamOfTheChainYieldsTheValueThenNil() async throws {
        let console = FarewellConsole()
        var agent: FarewellAgent? = FarewellAgent()
        console.agent = agent
        let stream = try console.values(for: \.agent?.status)
        agent = nil
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == Optional("idle"))
        #expect(await iterator.next() == Optional<String?>.some(nil))
        withExtendedLifetime(agent) {}
    }

    @Test func aStringChainGetsOnlyTheDeath() throws {
        let console = FarewellConsole()
        let observer = TestObserver()
        let values = Recorded<String?>()
        try observer.kvoController.observe(console, keyPath: "agent.status", options: [.new]) { _, _, change in
            values.append(change.newValue.flatMap { $0 as? String })
        }
        var agent: FarewellAgent? = FarewellAgent()
        console.agent = agent
        agent = nil
        #expect(values.values == ["idle", nil])
    }

    @Test func aCollectionChangeInTheReferentsDeinitIsNotDeliveredThroughTheChain() {
        let console = FarewellConsole()
        let observer = TestObserver()
        let recorder = recordChanges(of: console, \.agent?.log, options: [.new], by: observer)
        var agent: FarewellAgent? = FarewellAgent()
        console.agent = agent
        agent!.mutableArrayValue(for: \.log).append("hello")
        agent = nil
        #expect(recorder.changes.map(\.kind) == [.setting, .insertion, .setting])
        #expect(recorder.changes.map { $0.newValue ?? nil } == [[], ["hello"], nil])
    }
}
