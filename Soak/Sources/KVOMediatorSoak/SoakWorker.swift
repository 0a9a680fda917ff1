/// One soak thread: it owns a group and sets its objects, keeps whole-phase registrations on two other
/// groups, and churns registrations on groups chosen at random, until the run stops; then it ends
/// everything it made and checks it.
struct SoakWorker {
    /// The churned sessions a thread keeps at once.
    private static let sessionLimit = 4
    /// The longest a churned session lives, in rounds.
    private static let sessionRounds = 24

    let index: Int
    let run: SoakRun
    let stats: WorkerStats

    func main() {
        var random = SplitMix64(seed: 0x5EED &+ UInt64(index))
        var tally = WorkerTally()
        let group = run.groups[index]
        let live = LiveRegistrations(thread: index, groups: run.groups)
        stats.advance()
        wait(for: run.started)
        stats.stage = .running
        var sessions: [ChurnSession] = []
        var round = 0
        while !run.isStopped {
            round += 1
            setOwnObjects(of: group, round: round, tally: &tally, random: &random)
            churn(&sessions, round: round, tally: &tally, random: &random)
            stats.advance()
        }
        stats.stage = .endingSessions
        for session in sessions {
            tally.notifications += session.end(random: &random)
            stats.advance()
        }
        sessions = []
        wait(for: run.writersStopped)
        stats.stage = .checking
        live.verify()
        stats.advance()
        stats.stage = .tearingDown
        tally.notifications += live.end()
        stats.tally = tally
        // `.done` is set by the caller once this returns: releasing the locals may still hang.
    }

    /// The owner's sets: the cells, the chains' leaves, the transient cell; now and then the chains'
    /// middle links are replaced (or detached, or attached again), and the transient cell is replaced
    /// (and so released).
    private func setOwnObjects(of group: OwnedGroup, round: Int, tally: inout WorkerTally, random: inout SplitMix64) {
        group.advanceCell(0, timings: &tally.timings)
        group.advanceCell(1, timings: &tally.timings)
        group.advanceRacingCell(timings: &tally.timings)
        group.advanceChains(timings: &tally.timings)
        if round % 16 == 0 {
            group.replaceMiddles(detaching: random.oneIn(4), timings: &tally.timings)
            tally.middleLinkChanges += 2
        }
        group.advanceTransient(timings: &tally.timings)
        if round % 64 == 0 {
            let retired = group.replaceTransient()
            if random.oneIn(4) { tally.samples.add(retired, kind: "transient cell") }
            tally.transientsReleased += 1
        }
    }

    /// Ends the sessions that are due, and may start one on a group chosen at random (its own included).
    private func churn(
        _ sessions: inout [ChurnSession],
        round: Int,
        tally: inout WorkerTally,
        random: inout SplitMix64
    ) {
        var index = 0
        while index < sessions.count {
            if sessions[index].endsAtRound <= round {
                tally.notifications += sessions.remove(at: index).end(random: &random)
            } else {
                index += 1
            }
        }
        guard sessions.count < Self.sessionLimit, random.oneIn(2) else { return }
        let session = ChurnSession(
            thread: self.index,
            group: run.groups[random.below(run.groups.count)],
            endsAtRound: round + 1 + random.below(Self.sessionRounds),
            random: &random,
            samples: &tally.samples
        )
        tally.sessions += 1
        tally.churnedRegistrations += session.registrationCount
        sessions.append(session)
    }

    private func wait(for barrier: Barrier) {
        let stage = stats.stage
        stats.stage = .waiting
        barrier.arriveAndWait()
        stats.stage = stage
    }
}
