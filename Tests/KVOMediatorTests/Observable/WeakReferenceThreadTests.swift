import Foundation
import KVOMediator
import Testing

@testable import KVOMediator

/// `@ObservedWeak` across threads: a referent dying on another thread, and a holder dying at the same moment.
@Suite struct WeakReferenceThreadTests {
    @Test func referentDyingOnAnotherThreadGivesTheObservedChainOneRecord() {
        for round in 0..<200 {
            let console = Console()
            let observer = TestObserver()
            let log = TextLog()
            observer.kvoController.observe(console, keyPath: \.agent?.status, options: [.old, .new]) { _, _, change in
                log.append(summary(change))
            }
            weak var probe: Agent?
            var baton: Baton<Agent>?
            do {
                let agent = Agent("a\(round)", status: "busy")
                probe = agent
                console.agent = agent
                baton = Baton(agent)
            }
            let thread = TestThread { [baton] in baton?.drop() }
            baton = nil
            thread.join()
            #expect(probe == nil)
            #expect(log.entries == ["setting nil→busy", "setting nil→nil"])
            #expect(console.agent == nil)
        }
    }

    @Test func holderAndReferentDyingOnTwoThreadsAtOnceIsSafe() {
        let observer = TestObserver()
        let log = TextLog()
        for round in 0..<500 {
            weak var holderProbe: Console?
            weak var referentProbe: Agent?
            var holderBaton: Baton<Console>?
            var referentBaton: Baton<Agent>?
            do {
                let console = Console()
                let agent = Agent("a\(round)")
                holderProbe = console
                referentProbe = agent
                observer.kvoController.observe(console, keyPath: \.agent?.status, options: [.new]) { _, _, change in
                    log.append("\(round) \(summary(change))")
                }
                console.agent = agent
                holderBaton = Baton(console)
                referentBaton = Baton(agent)
            }
            let start = DispatchSemaphore(value: 0)
            let holderThread = TestThread { [holderBaton] in
                start.wait()
                holderBaton?.drop()
            }
            let referentThread = TestThread { [referentBaton] in
                start.wait()
                referentBaton?.drop()
            }
            (holderBaton, referentBaton) = (nil, nil)
            start.signal()
            start.signal()
            holderThread.join()
            referentThread.join()
            #expect(holderProbe == nil)
            #expect(referentProbe == nil)
            #expect(observer.kvoController.observationCount == 0)
        }
        // Each round: its set, then its death's record only if the holder was still there.
        let deaths = log.entries.filter { $0.hasSuffix("setting -→nil") }
        #expect(log.entries.count - deaths.count == 500)
        #expect(Set(deaths).count == deaths.count)
    }
}
