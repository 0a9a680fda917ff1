import KVOMediator

/// What the dashboard shows, kept up to date only through observations of the manager and its downloads.
///
/// It is a `@MainActor` view model that owns a `KVOController`, as the documentation recommends: what
/// the screen shows arrives by main-actor delivery (the download list, each download's computed
/// `progress` and `state`, the selection and the chain `\.selected?.status`) and by a stream of the
/// computed `overallProgress`. The other callback styles run synchronously on the model queue and only
/// count (see `DashboardViewModel+SynchronousCallbacks.swift`). It never reads the model to draw.
@MainActor
final class DashboardViewModel {
    /// One download as the list shows it.
    struct Item {
        let download: Download
        let name: String
        var progress = 0.0
        var state = DownloadState.queued
    }

    lazy var kvoController = KVOController(observer: self)
    let manager: DownloadManager
    nonisolated let feed: ObservationFeed
    nonisolated let tally = TransferTally()
    /// The tokens of token-style observations; they end with it.
    let tokens = KVOObservationBag()
    /// The download list in the manager's order, from its insertions and removals.
    private(set) var order: [ObjectIdentifier] = []
    /// Every download observed now.
    private(set) var items: [ObjectIdentifier: Item] = [:]
    private(set) var selectedID: ObjectIdentifier?
    /// From the chain `\.selected?.status`: nil when nothing is selected.
    private(set) var selectedStatus: String?
    /// From the stream of `overallProgress`: nil until its first value.
    private(set) var overallProgress: Double?
    /// How many values the stream has given.
    private(set) var streamValues = 0
    private var overallTask: Task<Void, Never>?
    private var added = 0
    private let tracker: ReleaseTracker
    private let networkScale: Int
    /// True in the scripted run: each command is applied before the call returns.
    private let waitsForModel: Bool

    init(
        manager: DownloadManager,
        feed: ObservationFeed,
        tracker: ReleaseTracker,
        networkScale: Int,
        waitsForModel: Bool
    ) {
        self.manager = manager
        self.feed = feed
        self.tracker = tracker
        self.networkScale = networkScale
        self.waitsForModel = waitsForModel
    }

    /// Observes the manager, starts the stream, and adds the first `downloads` downloads.
    ///
    /// Call it before the network starts: registering reads the key paths on this thread.
    func start(downloads: Int) throws {
        kvoController.observe(
            manager,
            keyPath: \.downloads,
            options: [.old, .new],
            delivery: .mainActor
        ) { viewModel, change in
            viewModel.feed.record(.mainActor, change, subject: "manager")
            viewModel.downloadsChanged(change)
        }
        kvoController.observe(
            manager,
            keyPath: \.selected,
            options: [.initial, .old, .new],
            delivery: .mainActor
        ) { viewModel, change in
            viewModel.feed.record(.mainActor, change, subject: "manager")
            viewModel.selectedID = (change.newValue ?? nil).map(ObjectIdentifier.init)
        }
        // A chain through an optional link to a computed property. (Ending in a String, not a Double: reading
        // a key path through an optional into a Double trips valgrind in the standard library.)
        kvoController.observe(
            manager,
            keyPath: \.selected?.status,
            options: [.initial, .old, .new],
            delivery: .mainActor
        ) { viewModel, change in
            viewModel.feed.record(.mainActor, change, subject: "manager")
            viewModel.selectedStatus = change.newValue ?? nil
        }
        recordObserved("downloads, selected, selected.status (main-actor)", on: "manager")
        try observeSynchronously(manager)
        try startOverallStream()
        for _ in 0..<downloads { addDownload() }
    }

    /// Ends the stream's task, the tokens and the controller's observations.
    func stop() async {
        overallTask?.cancel()
        await overallTask?.value
        overallTask = nil
        tokens.invalidateAll()
        kvoController.unobserveAll()
        feed.recordRegistration(
            .unobserved,
            of: "unobserveAll(), its tokens and its stream",
            on: "all",
            controllerCount: controllerCount
        )
    }

    /// The stream of `overallProgress`, read by a task on the main actor, and a token beside it.
    private func startOverallStream() throws {
        // A token on the same key path, made just before the stream with no change in between: it is
        // called once for each value the stream gives, so its count says how many the task has to read.
        try observeWithToken(\.overallProgress)
        // Made before the task that iterates it: the observation is in place from here on, so the
        // task, whenever it starts, misses no change.
        let values = try manager.values(for: \.overallProgress)
        overallTask = Task { [weak self] in
            for await value in values {
                guard let self else { return }
                feed.record(
                    .stream,
                    keyPathName: "overallProgress",
                    subject: "manager",
                    old: overallProgress,
                    new: value
                )
                overallProgress = value
                streamValues += 1
            }
        }
        recordObserved("overallProgress (stream)", on: "manager")
    }

    // MARK: Intents: what the keys ask for

    /// Makes the next download, observes it, and hands it to the manager.
    func addDownload() {
        added += 1
        let download = Download(number: added, networkScale: networkScale)
        let id = ObjectIdentifier(download)
        let name = download.name
        tracker.track(download, as: name)
        items[id] = Item(download: download, name: name)
        // Observed before it is shared with the model queue, so these registrations read it safely.
        // Progress changes on the model queue far more often than a frame is drawn: while one delivery
        // waits for the main actor, newer changes merge into it (old from the first, new from the last).
        kvoController.observe(
            download,
            keyPath: \.progress,
            options: [.initial, .old, .new],
            delivery: .mainActor(coalescing: .latest)
        ) { viewModel, change in
            viewModel.feed.record(.mainActor, change, subject: name)
            viewModel.items[id]?.progress = change.newValue ?? 0
        }
        kvoController.observe(
            download,
            keyPath: \.state,
            options: [.initial, .old, .new],
            delivery: .mainActor
        ) { viewModel, change in
            viewModel.feed.record(.mainActor, change, subject: name)
            viewModel.items[id]?.state = change.newValue ?? .queued
        }
        observeTransfer(of: download)
        recordObserved("progress, state (main-actor), receivedBytes (block)", on: name)
        model(.enqueue(download))
    }

    func selectNext() { select(offset: 1) }
    func selectPrevious() { select(offset: -1) }
    func togglePause() { model(.togglePauseSelected) }
    func cancelSelected() { model(.cancelSelected) }
    func clearFinished() { model(.clearFinished) }
    func faster() { model(.faster) }
    func slower() { model(.slower) }

    /// The controller's registrations, the tokens and the streams.
    var registrationCounts: (controller: Int, tokens: Int, streams: Int) {
        (kvoController.observationCount, tokens.count, overallTask == nil ? 0 : 1)
    }

    // MARK: Observation callbacks and helpers

    private func downloadsChanged(_ change: KVOChange<[Download]>) {
        switch change.kind {
        case .insertion:
            for (index, download) in zip(change.indexes ?? [], change.newValue ?? []) {
                order.insert(ObjectIdentifier(download), at: min(index, order.count))
            }
        case .removal:
            for download in change.oldValue ?? [] {
                let id = ObjectIdentifier(download)
                order.removeAll { $0 == id }
                items[id] = nil
                kvoController.unobserve(download)
                feed.recordRegistration(
                    .unobserved,
                    of: "all its key paths",
                    on: download.name,
                    controllerCount: controllerCount
                )
            }
        case .replacement:
            for (index, download) in zip(change.indexes ?? [], change.newValue ?? []) where index < order.count {
                order[index] = ObjectIdentifier(download)
            }
        case .setting:
            order = (change.newValue ?? []).map(ObjectIdentifier.init)
        }
    }

    private func select(offset: Int) {
        guard !order.isEmpty else { return }
        let current = selectedID.flatMap { order.firstIndex(of: $0) } ?? (offset > 0 ? -1 : order.count)
        let next = min(max(current + offset, 0), order.count - 1)
        model(.select(items[order[next]]?.download))
    }

    private func model(_ command: DownloadCommand) {
        if waitsForModel { manager.perform(command) } else { manager.send(command) }
    }

    private var controllerCount: Int { kvoController.observationCount }

    /// Adds an "observe" line to the registrations pane, with the controller's count after it.
    func recordObserved(_ keyPaths: String, on subject: String) {
        feed.recordRegistration(.observed, of: keyPaths, on: subject, controllerCount: controllerCount)
    }
}
