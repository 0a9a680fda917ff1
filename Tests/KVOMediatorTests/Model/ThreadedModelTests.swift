import Foundation
import Synchronization
import Testing

@testable import KVOMediator

/// Random programs on 4 and 8 threads over shared objects, one writing thread per property: records
/// cannot be compared one for one, so invariants are checked instead. Every change reaches each
/// registration live across it exactly once, in order; nothing reaches a registration after its end
/// returned; no deinitialising observer is called; string key paths are registered and re-read while
/// other threads write other properties of the same object; everything is released at the end; and
/// the threads finish (a thread still running after two minutes fails the test).
@Suite struct ThreadedModelTests {
    /// Each run's steps, over all its threads: a quarter of `KVO_MODEL_OPERATIONS`, in two runs (at least
    /// 2,000, enough for writes to fall inside registrations' windows).
    static var stepsPerRun: Int {
        max(2_000, ReferenceModelTests.operations / 8)
    }

    @Test(.enabled(if: ReferenceModelTests.replayedSeed == nil), arguments: [4, 8])
    func threadsSharingObjectsReceiveEachChangeOnceAndNothingAfterTheEnd(threads: Int) {
        let seed = DispatchTime.now().uptimeNanoseconds
        let journal: ThreadedJournal
        do {
            let world = ThreadedWorld(threads: threads)
            journal = world.journal
            // With caches off (`KVO_MEDIATOR_CACHES=off`) nothing is pinned: each key is observed by its writer only.
            let observableFromOtherThreads =
                CacheSwitch.cachesAreOn ? ThreadedKey.allCases.filter(\.isObservableFromOtherThreads).count : 0
            #expect(world.learnDirectSlots() == observableFromOtherThreads, "keys other threads cannot observe")
            let gate = StartGate(threads: threads)
            let steps = Self.stepsPerRun / threads
            let workers = (0..<threads).map { index in
                TestThread {
                    var program = ThreadProgram(index: index, world: world, seed: seed, steps: steps)
                    gate.arriveAndWait()
                    program.run()
                }
            }
            for worker in workers {
                guard worker.join(seconds: 120) else { return }
            }
        }
        let violations = journal.problems + journal.allTallies.flatMap { $0.violations() }
        for violation in violations.prefix(10) {
            Issue.record("\(threads) threads, seed \(seed): \(violation)")
        }
        #expect(violations.count == 0, "violations, the first ones recorded above")
        #expect(journal.survivors == [], "still alive after the run")
        // (Fewer with caches off, when each key has one observing thread.)
        let fewest = Self.stepsPerRun / (CacheSwitch.cachesAreOn ? 10 : 40)
        #expect(journal.allTallies.count > fewest, "too few registrations were made")
        #expect(journal.allTallies.reduce(0) { $0 + $1.requiredWrites } > 0, "no write had to be delivered")
    }
}

/// Lets threads start their programs together.
final class StartGate: Sendable {
    private let arrived = Atomic<Int>(0)
    private let threads: Int

    init(threads: Int) {
        self.threads = threads
    }

    func arriveAndWait() {
        arrived.wrappingAdd(1, ordering: .acquiringAndReleasing)
        while arrived.load(ordering: .acquiring) < threads { usleep(100) }
    }
}
