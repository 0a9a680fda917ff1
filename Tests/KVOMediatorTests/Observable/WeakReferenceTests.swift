import Foundation
import KVOMediator
import Testing

@testable import KVOMediator

/// `@ObservedWeak`: a weak property whose sets, and whose referent's death, are announced.
@Suite struct WeakReferenceTests {
    @Test func referentDeathGivesThePropertyOneSettingFromNilToNil() {
        let console = Console()
        let observer = TestObserver()
        let log = TextLog()
        observer.kvoController.observe(console, keyPath: \.agent, options: [.old, .new]) { _, _, change in
            log.append(summary(change))
        }
        weak var probe: Agent?
        do {
            let agent = Agent("a1")
            probe = agent
            console.agent = agent
            #expect(console.agent === agent)
            #expect(agent.kvoRegistrar.weakLinkCount == 1)
        }
        #expect(probe == nil)
        #expect(console.agent == nil)
        #expect(log.entries == ["setting nil→a1", "setting nil→nil"])
    }

    @Test func aSetByNameLinksTheReferentAndItsDeathIsStillAnnounced() throws {
        let console = Console()
        let observer = TestObserver()
        let log = TextLog()
        observer.kvoController.observe(console, keyPath: \.agent, options: [.old, .new]) { _, _, change in
            log.append(summary(change))
        }
        weak var probe: Agent?
        do {
            let agent = Agent("a1")
            probe = agent
            try console.setValue(agent, atKeyPath: "agent")
            #expect(console.agent === agent)
            #expect(agent.kvoRegistrar.weakLinkCount == 1)
            #expect(throws: KVOError.self) { try console.setValue("a1", atKeyPath: "agent") }
            #expect(console.agent === agent)
        }
        #expect(probe == nil)
        #expect(log.entries == ["setting nil→a1", "setting nil→nil"])
        let next = Agent("a2")
        try console.setValue(next, atKeyPath: "agent")
        try console.setValue(nil, atKeyPath: "agent")
        #expect(console.agent == nil)
        #expect(next.kvoRegistrar.weakLinkCount == 0)
        #expect(log.entries == ["setting nil→a1", "setting nil→nil", "setting nil→a2", "setting a2→nil"])
    }

    @Test func priorObserverGetsThePriorRecordThenTheNilRecord() {
        let console = Console()
        let observer = TestObserver()
        let log = TextLog()
        observer.kvoController.observe(console, keyPath: \.agent, options: [.prior, .old, .new]) { _, _, change in
            log.append(summary(change))
        }
        do {
            let agent = Agent("a1")
            console.agent = agent
        }
        #expect(log.entries == ["setting nil→- prior", "setting nil→a1", "setting nil→- prior", "setting nil→nil"])
    }

    @Test func initialRecordCarriesTheReferentAndTheDeathFollows() {
        let console = Console()
        let observer = TestObserver()
        let log = TextLog()
        do {
            let agent = Agent("a1")
            console.agent = agent
            observer.kvoController.observe(console, keyPath: \.agent, options: [.initial, .new]) { _, _, change in
                log.append(summary(change))
            }
        }
        #expect(log.entries == ["setting -→a1", "setting -→nil"])
    }

    @Test func chainThroughTheReferentGetsOneNilRecordAndFollowsTheNextReferent() {
        let console = Console()
        let observer = TestObserver()
        let log = TextLog()
        observer.kvoController.observe(console, keyPath: \.agent?.status, options: [.old, .new]) { _, _, change in
            log.append(summary(change))
        }
        do {
            let agent = Agent("a1")
            console.agent = agent
            agent.status = "busy"
        }
        #expect(log.entries == ["setting nil→idle", "setting idle→busy", "setting nil→nil"])
        let next = Agent("a2", status: "away")
        console.agent = next
        next.status = "back"
        #expect(log.entries.dropFirst(3) == ["setting nil→away", "setting away→back"])
        #expect(console.kvoRegistrar.subscriptionCount == 1)
        #expect(next.kvoRegistrar.subscriptionCount == 1)
    }

    @Test func recordsAreNamedByThePropertyAndTheChainAlsoOnceTheReferentIsGone() {
        let console = Console()
        let observer = TestObserver()
        let log = TextLog()
        observer.kvoController.observe(console, keyPath: \.agent, options: [.new]) { _, _, change in
            log.append(change.keyPathName)
        }
        observer.kvoController.observe(console, keyPath: \.agent?.status, options: [.new]) { _, _, change in
            log.append(change.keyPathName)
        }
        do {
            let agent = Agent("a1")
            console.agent = agent
        }
        #expect(log.entries.sorted() == ["agent", "agent", "agent.status", "agent.status"])
    }

    @Test func stringKeyPathsOfThePropertyAndThroughItGetOneRecordEach() throws {
        let console = Console()
        let observer = TestObserver()
        let direct = TextLog()
        let chain = TextLog()
        try observer.kvoController.observe(console, keyPath: "agent", options: [.new]) { _, _, change in
            direct.append(summary(change))
        }
        try observer.kvoController.observe(console, keyPath: "agent.status", options: [.new]) { _, _, change in
            chain.append(summary(change))
        }
        do {
            let agent = Agent("a1")
            console.agent = agent
            agent.status = "busy"
            #expect(console[kvoKeyPath: "agent.status"] as? String == "busy")
        }
        #expect(console[kvoKeyPath: "agent"] == nil)
        #expect(direct.entries == ["setting -→a1", "setting -→nil"])
        #expect(chain.entries == ["setting -→idle", "setting -→busy", "setting -→nil"])
        #expect(throws: KVOError.self) { try console.validateKeyPath("agent.stat") }
        try console.validateKeyPath("backup.status")
    }

    @Test func tokenGetsOneRecordAndStaysValid() throws {
        let console = Console()
        let log = TextLog()
        let token = try console.observe(\.agent?.status, options: [.new]) { _, change in
            log.append(summary(change))
        }
        do {
            let agent = Agent("a1", status: "busy")
            console.agent = agent
        }
        #expect(log.entries == ["setting -→busy", "setting -→nil"])
        #expect(token.isValid)
    }

    @Test(.timeLimit(.minutes(1))) func valueStreamYieldsNilWhenTheReferentDies() async throws {
        let console = Console()
        let values = try console.values(for: \.agent?.status)
        do {
            let agent = Agent("a1", status: "busy")
            console.agent = agent
        }
        var iterator = values.makeAsyncIterator()
        #expect(await iterator.next() == .some(nil))
        #expect(await iterator.next() == .some("busy"))
        #expect(await iterator.next() == .some(nil))
    }

    @Test func nothingIsDeliveredWhenNobodyObservesTheProperty() {
        let console = Console()
        let observer = TestObserver()
        let log = TextLog()
        observer.kvoController.observe(console, keyPath: \.title, options: [.new]) { _, _, change in
            log.append(change.newValue ?? "-")
        }
        weak var probe: Agent?
        do {
            let agent = Agent("a1")
            probe = agent
            console.agent = agent
        }
        console.title = "after"
        #expect(probe == nil)
        #expect(log.entries == ["after"])
    }

    @Test func reassigningMovesTheHookToTheNewReferent() {
        let console = Console()
        let observer = TestObserver()
        let log = TextLog()
        observer.kvoController.observe(console, keyPath: \.agent, options: [.old, .new]) { _, _, change in
            log.append(summary(change))
        }
        var first: Agent? = Agent("a1")
        var second: Agent? = Agent("a2")
        console.agent = first
        console.agent = second
        #expect(first!.kvoRegistrar.weakLinkCount == 0)
        #expect(second!.kvoRegistrar.weakLinkCount == 1)
        first = nil
        #expect(log.entries == ["setting nil→a1", "setting a1→a2"])
        second = nil
        #expect(log.entries == ["setting nil→a1", "setting a1→a2", "setting nil→nil"])
    }

    @Test func settingNilNotifiesAndTheOldReferentsDeathDoesNot() {
        let console = Console()
        let observer = TestObserver()
        let log = TextLog()
        observer.kvoController.observe(console, keyPath: \.agent, options: [.old, .new]) { _, _, change in
            log.append(summary(change))
        }
        var agent: Agent? = Agent("a1")
        console.agent = agent
        console.agent = agent
        #expect(agent!.kvoRegistrar.weakLinkCount == 1)
        console.agent = nil
        #expect(agent!.kvoRegistrar.weakLinkCount == 0)
        agent = nil
        #expect(log.entries == ["setting nil→a1", "setting a1→a1", "setting a1→nil"])
    }

    @Test func holderThatDiesFirstIsNotKeptAliveAndHearsNothing() {
        let log = TextLog()
        let observer = TestObserver()
        let agent = Agent("a1")
        weak var holderProbe: Console?
        do {
            let console = Console(agent: agent)
            holderProbe = console
            observer.kvoController.observe(console, keyPath: \.agent?.status, options: [.new]) { _, _, change in
                log.append(summary(change))
            }
            #expect(agent.kvoRegistrar.weakLinkCount == 1)
        }
        #expect(holderProbe == nil)
        #expect(agent.kvoRegistrar.weakLinkCount == 0)
        #expect(agent.kvoRegistrar.subscriptionCount == 0)
        #expect(observer.kvoController.observationCount == 0)
        agent.status = "busy"
        #expect(log.entries.isEmpty)
    }

    @Test func everyPropertyOfEveryHolderOfTheReferentIsTold() {
        let observer = TestObserver()
        let log = TextLog()
        let consoles = [Console(), Console()]
        for (index, console) in consoles.enumerated() {
            for (name, keyPath) in [("agent", \Console.agent), ("backup", \Console.backup)] {
                observer.kvoController.observe(console, keyPath: keyPath, options: [.new]) { _, _, change in
                    log.append("\(index).\(name) \(summary(change))")
                }
            }
        }
        do {
            let agent = Agent("a1")
            for console in consoles {
                console.agent = agent
                console.backup = agent
            }
            #expect(agent.kvoRegistrar.weakLinkCount == 4)
        }
        #expect(log.entries.count == 8)
        #expect(
            log.entries.dropFirst(4).sorted() == [
                "0.agent setting -→nil", "0.backup setting -→nil", "1.agent setting -→nil", "1.backup setting -→nil",
            ]
        )
        // The holders must outlive the referent: an optimised build may end them after their last use.
        withExtendedLifetime(consoles) {}
    }
}
