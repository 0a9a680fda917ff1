import Foundation

/// The scripted run, for CI and for output that is not a terminal: the same view model and model as the
/// live dashboard, driven by a fixed script, printing every callback and registration as a line.
///
/// Each step is applied on the model queue while the main thread waits, then the main queue runs the
/// main-actor deliveries and the stream's task before the step's lines are printed; so every line but
/// the last one (the time taken) is the same in every run.
@MainActor
enum PlainRun {
    /// One step of the script: what it is called and what it does.
    private struct Step {
        let title: String
        let action: (DashboardViewModel) -> Void
    }

    /// Bytes per tick are this many times the live dashboard's, so that the script is short.
    static let networkScale = 12
    /// The longest the last step ticks the network, waiting for every download to finish.
    static let maximumTicks = 1_000

    static func run(downloads: Int) async -> Int32 {
        let started = ContinuousClock.now
        let feed = ObservationFeed(capacity: 100_000)
        let printer = FeedPrinter(feed: feed)
        print("KVOMediatorDemo --plain: \(DashboardScreen.explanation)")
        print("Each line: callback style, change.keyPathName, object, old -> new; or a registration made or ended.")
        let release: DemoRun.Release
        do {
            release = try await DemoRun.run(
                downloads: downloads,
                networkScale: networkScale,
                waitsForModel: true,
                feed: feed
            ) { viewModel in
                await settle(viewModel)
                printer.printNew(under: "start: observe the manager, add \(downloads) downloads")
                for step in script {
                    step.action(viewModel)
                    await settle(viewModel)
                    printer.printNew(under: step.title)
                }
                var ticks = 0
                while ticks < maximumTicks, viewModel.items.values.contains(where: { $0.state != .finished }) {
                    ticks += 1
                    viewModel.manager.perform(.tick)
                    await settle(viewModel)
                    printer.printNew(under: "network tick until every download has finished")
                }
                viewModel.clearFinished()
                await settle(viewModel)
                printer.printNew(under: "clear the finished downloads (x)")
            }
        } catch {
            print("KVOMediatorDemo: \(error)")
            return 1
        }
        printer.printNew(under: "end: the view model stops")
        return summary(feed: feed, release: release, elapsed: ContinuousClock.now - started)
    }

    /// The scripted keys, between network ticks.
    private static let script: [Step] = {
        let ticks = (1...3).map { _ in Step(title: "network tick") { $0.manager.perform(.tick) } }
        return ticks + [
            Step(title: "select the next download (down)") { $0.selectNext() },
            Step(title: "pause it (p)") { $0.togglePause() },
            Step(title: "faster (+)") { $0.faster() },
        ] + ticks + [
            Step(title: "add a download (a)") { $0.addDownload() },
            Step(title: "cancel the selected download (c)") { $0.cancelSelected() },
            Step(title: "slower (-)") { $0.slower() },
        ]
    }()

    /// Waits for what the last step set off: the main-actor deliveries it queued (one turn of the main
    /// queue runs them), and the stream's values, which reach the task through the global executor, so
    /// at no fixed turn: the task has read them all when it has read as many as the token on the same
    /// key path was called. (Bounded: a stream that stopped would show in the output, not hang CI.)
    private static func settle(_ viewModel: DashboardViewModel) async {
        await DemoRun.nextTurnOfMainQueue()
        let deadline = ContinuousClock.now + .seconds(10)
        while viewModel.streamValues < viewModel.tally.current.tokenChanges, ContinuousClock.now < deadline {
            await DemoRun.nextTurnOfMainQueue()
        }
    }

    private static func summary(feed: ObservationFeed, release: DemoRun.Release, elapsed: Duration) -> Int32 {
        let counts = feed.firedCounts
        let styles = CallbackStyle.allCases.map { "\($0.rawValue) \(counts[$0, default: 0])" }
        let released = release.alive.isEmpty
        print(
            """

            summary
              callbacks fired:  \(feed.firedTotal) (\(styles.joined(separator: ", ")))
              objects made:     \(release.tracked) (manager, view model, controller and every download)
              models, view model and controller released: \(released ? "yes" : "NO: " + release.alive.joined(separator: ", "))
              time: \(String(format: "%.2f", Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)) s
            """
        )
        return released ? 0 : 1
    }
}

/// Prints the feed's new events under a heading, once per heading in a row.
@MainActor
private final class FeedPrinter {
    private let feed: ObservationFeed
    private var printed = 0
    private var lastHeading: String?

    init(feed: ObservationFeed) {
        self.feed = feed
    }

    /// Prints the events since the last call: the stream's last, since the task reads them at no fixed
    /// place among the others (each kind keeps its own order).
    func printNew(under heading: String) {
        let events = feed.events(after: printed)
        guard let last = events.last else { return }
        if heading != lastHeading { print("\n== \(heading)") }
        lastHeading = heading
        let isStream = { (event: FeedEvent) in event.kind == .fired(.stream) }
        for event in events.filter({ !isStream($0) }) + events.filter(isStream) {
            print("  " + event.line(arrow: "->"))
        }
        printed = last.sequence
    }
}
