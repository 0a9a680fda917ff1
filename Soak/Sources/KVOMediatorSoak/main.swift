import Foundation

// KVOMediatorSoak: an oversubscribed soak. Each of N threads (64 by default, on however few cores)
// owns a group of observed objects and sets them, numbering every change, while every thread observes
// and unobserves the others' objects through controllers and tokens, directly and through a
// three-link chain whose middle link is replaced, and releases observers, controllers and observed
// objects. Registrations check that they see each change exactly once, in order, and nothing after
// their end; at the end everything must have been released. See SoakWorker for one thread's round.

guard let options = SoakOptions.parse(Array(CommandLine.arguments.dropFirst())) else { exit(2) }

/// Runs the threads for the given time and returns what they counted, once they are joined.
func soak(_ options: SoakOptions, watchedAs main: WorkerStats, stats: [WorkerStats]) -> SoakOutcome {
    let run = SoakRun(threads: options.threads)
    let threads = (0..<options.threads).map { index in
        SoakThread(name: "soak \(index)") { [stats] in
            SoakWorker(index: index, run: run, stats: stats[index]).main()
            stats[index].stage = .done
        }
    }
    main.stage = .waiting
    run.started.arriveAndWait()
    let begin = monotonicNanoseconds()
    let deadline = begin + UInt64(options.seconds * 1e9)
    while case let now = monotonicNanoseconds(), now < deadline {
        usleep(UInt32(min(deadline - now, 200_000_000) / 1_000))
    }
    run.stop()
    let elapsed = Double(monotonicNanoseconds() - begin) / 1e9
    for thread in threads { thread.join() }
    var outcome = SoakOutcome(threads: options.threads, seconds: elapsed, tallies: stats.map(\.tally))
    for group in run.groups {
        for cell in group.cells { outcome.groupObjects.add(cell, kind: "cell") }
        outcome.groupObjects.add(group.root, kind: "chain root")
        outcome.groupObjects.add(group.transient, kind: "transient cell")
    }
    main.stage = .releasingGroups  // returning releases `run`, and with it every group's objects
    return outcome
}

let stats = (0..<options.threads).map { _ in WorkerStats() }
let mainStats = WorkerStats()
let watchdog = Watchdog(watching: stats + [mainStats], limit: 20)
watchdog.start()
let outcome = soak(options, watchedAs: mainStats, stats: stats)
mainStats.stage = .done
watchdog.stop()
exit(outcome.report() ? 0 : 1)
