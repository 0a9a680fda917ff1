import Dispatch

/// One run of the demo, live or scripted: makes the manager and the view model, runs `body`, ends the
/// observations, and reports which of the objects the run made are still alive (none should be).
@MainActor
enum DemoRun {
    /// What is left after a run.
    struct Release {
        /// The labels of the objects still alive: empty when everything was released.
        var alive: [String]
        /// How many objects were tracked.
        var tracked: Int
    }

    /// Runs `body` with a started view model; `networkScale` multiplies the bytes per tick.
    static func run(
        downloads: Int,
        networkScale: Int,
        waitsForModel: Bool,
        feed: ObservationFeed,
        _ body: (DashboardViewModel) async -> Void
    ) async throws -> Release {
        let tracker = ReleaseTracker()
        try await runModel(
            downloads: downloads,
            networkScale: networkScale,
            waitsForModel: waitsForModel,
            feed: feed,
            tracker: tracker,
            body
        )
        // Main-actor deliveries queued before the end may still hold values (downloads): let them run.
        for _ in 0..<3 { await nextTurnOfMainQueue() }
        return Release(alive: tracker.alive, tracked: tracker.count)
    }

    /// Returns once every job queued on the main queue before it has run.
    static func nextTurnOfMainQueue() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume() }
        }
    }

    /// The part of the run that holds the objects, so that they are let go when it returns.
    private static func runModel(
        downloads: Int,
        networkScale: Int,
        waitsForModel: Bool,
        feed: ObservationFeed,
        tracker: ReleaseTracker,
        _ body: (DashboardViewModel) async -> Void
    ) async throws {
        let manager = DownloadManager()
        let viewModel = DashboardViewModel(
            manager: manager,
            feed: feed,
            tracker: tracker,
            networkScale: networkScale,
            waitsForModel: waitsForModel
        )
        tracker.track(manager, as: "manager")
        tracker.track(viewModel, as: "view model")
        tracker.track(viewModel.kvoController, as: "controller")
        do {
            try viewModel.start(downloads: downloads)
            await body(viewModel)
        } catch {
            await viewModel.stop()
            throw error
        }
        manager.stopNetwork()
        await viewModel.stop()
    }
}
