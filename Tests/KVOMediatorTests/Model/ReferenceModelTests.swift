import Foundation
import Testing

/// Random programs over a small world, run against the library and a plain reference model side by
/// side: every registration must receive exactly the records the model states, in order, and every
/// object, observer and controller must live exactly as long as the model says.
///
/// `KVO_MODEL_OPERATIONS` sets how many operations the model suites run (20,000 by default): three
/// quarters here, half of them on fixed seeds and half on fresh ones (printed), and a quarter in
/// `ThreadedModelTests`. `KVO_MODEL_SEED` replays one seed alone. See Tests/README.md.
@Suite struct ReferenceModelTests {
    /// Every program has this many operations, so that a seed alone replays it.
    static let programLength = 400

    static var operations: Int {
        ProcessInfo.processInfo.environment["KVO_MODEL_OPERATIONS"].flatMap(Int.init) ?? 20_000
    }

    static var replayedSeed: UInt64? {
        ProcessInfo.processInfo.environment["KVO_MODEL_SEED"].flatMap(UInt64.init)
    }

    /// How many programs each of the two tests runs: three quarters of the operations between them.
    static var programsPerTest: Int {
        max(1, (operations * 3 / 4 / programLength + 1) / 2)
    }

    @Test func programsOfFixedSeedsReceiveExactlyWhatTheModelStates() async {
        let seeds = Self.replayedSeed.map { [$0] } ?? (1...UInt64(Self.programsPerTest)).map { $0 }
        await Self.check(seeds: seeds)
    }

    @Test(.enabled(if: replayedSeed == nil))
    func programsOfFreshSeedsReceiveExactlyWhatTheModelStates() async {
        var random = SplitMix64(
            state: DispatchTime.now().uptimeNanoseconds ^ UInt64(Date().timeIntervalSince1970 * 1e6)
        )
        let seeds = (0..<Self.programsPerTest).map { _ in random.next() }
        print("ReferenceModelTests fresh seeds (replay one with KVO_MODEL_SEED=<seed>): \(seeds)")
        await Self.check(seeds: seeds)
    }

    /// Runs the program of each seed; at the first failure, records the shortest failing prefix.
    static func check(seeds: [UInt64]) async {
        for seed in seeds {
            let program = ProgramGenerator.program(seed: seed, length: programLength)
            guard let failure = await ProgramRunner.run(program[...]) else { continue }
            let (length, shortest) = await ProgramRunner.shortestFailingPrefix(of: program, failure: failure)
            Issue.record(
                Comment(rawValue: ProgramRunner.report(seed: seed, program: program, length: length, failure: shortest))
            )
            return
        }
    }
}
