import Foundation

/// What a run measured and found, summed over its threads, and its report.
struct SoakOutcome {
    let threads: Int
    let seconds: Double
    let tallies: [WorkerTally]
    /// Weak references to every group's long-lived objects, taken after the threads finished.
    var groupObjects = WeakSamples()

    var sets: Int { tallies.reduce(0) { $0 + $1.timings.sets } }
    var notifications: Int { tallies.reduce(0) { $0 + $1.notifications } }

    /// The objects still alive once everything was released: every one is a leak.
    func leaks() -> [String] {
        var leaks = Census.all.filter { $0.count != 0 }.map { "\($0.count) \($0.kind) alive" }
        let sampled = tallies.flatMap(\.samples.alive) + groupObjects.alive
        if !sampled.isEmpty {
            let kinds = Dictionary(grouping: sampled) { $0 }.map { "\($0.value.count) \($0.key)" }.sorted()
            leaks.append("weak references not nil: " + kinds.joined(separator: ", "))
        }
        return leaks
    }

    /// Prints the summary, and one `RESULT` line for scripts; returns whether every check passed.
    func report() -> Bool {
        let latency = LatencySummary(tallies.flatMap(\.timings.samplers))
        let violations = Violations.shared.summary
        let leaks = leaks()
        let sampledReferences = tallies.reduce(groupObjects.count) { $0 + $1.samples.count }
        let sum = { (value: (WorkerTally) -> Int) in tallies.reduce(0) { $0 + value($1) } }
        print(
            """
            KVOMediatorSoak: \(threads) thread\(threads == 1 ? "" : "s") for \(format(seconds)) s on \(ProcessInfo.processInfo.activeProcessorCount) cores
              sets           \(count(sets))  (\(count(Int(Double(sets) / seconds)))/s)
              notifications  \(count(notifications))  (\(count(Int(Double(notifications) / seconds)))/s)
              set latency    p50 \(time(latency.median)), p99 \(time(latency.percentile99)), \
            max \(time(latency.longest)) (\(count(latency.sampleCount)) sets timed, 1 in 64 or fewer)
              by kind        \(latencyByKind())
              churned        \(count(sum(\.churnedRegistrations))) registrations in \(count(sum(\.sessions))) sessions; \
            released while observed: \(count(sum(\.transientsReleased))) transient cells, \
            \(count(sum(\.middleLinkChanges))) middle links replaced or detached
              released       \(leaks.isEmpty ? "everything" : leaks.joined(separator: "; ")) \
            (census of every cell, link and observer; \(count(sampledReferences)) weak references)
              violations     \(violations.count)
            """
        )
        for example in violations.examples { print("    \(example)") }
        print(
            "RESULT threads=\(threads) seconds=\(format(seconds)) sets_per_second=\(Int(Double(sets) / seconds))"
                + " notifications_per_second=\(Int(Double(notifications) / seconds))"
                + " p50_ns=\(latency.median) p99_ns=\(latency.percentile99) max_ns=\(latency.longest)"
                + " violations=\(violations.count) leaks=\(leaks.count)"
        )
        return violations.count == 0 && leaks.isEmpty
    }

    /// Each kind of set's share of the sets, p50 and p99.
    private func latencyByKind() -> String {
        let total = max(sets, 1)
        return SetKind.allCases.map { kind in
            let samplers = tallies.map { $0.timings.samplers[kind.rawValue] }
            let latency = LatencySummary(samplers)
            let share = Double(samplers.reduce(0) { $0 + $1.sets }) * 100 / Double(total)
            return "\(kind) \(String(format: "%.0f", share))%: \(time(latency.median)) / \(time(latency.percentile99))"
        }.joined(separator: ", ")
    }

    private func count(_ value: Int) -> String {
        value.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
    }

    private func format(_ seconds: Double) -> String {
        String(format: "%.1f", seconds)
    }

    private func time(_ nanoseconds: UInt64) -> String {
        switch nanoseconds {
        case ..<1_000: "\(nanoseconds) ns"
        case ..<1_000_000: String(format: "%.1f µs", Double(nanoseconds) / 1e3)
        default: String(format: "%.1f ms", Double(nanoseconds) / 1e6)
        }
    }
}
