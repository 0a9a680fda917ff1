import KVOMediator

/// The observations whose callbacks run synchronously, on the model queue that makes the changes:
/// block, action, keyPaths, string key path and token. They touch only thread-safe state (the feed and
/// the tally, `nonisolated let`s), never the view model's main-actor state.
extension DashboardViewModel {
    /// Registers the manager's synchronous observations.
    func observeSynchronously(_ manager: DownloadManager) throws {
        // An action: an unapplied method of the observer, here of the computed `activeCount`.
        kvoController.observe(
            manager,
            keyPath: \.activeCount,
            options: [.initial, .old, .new],
            action: DashboardViewModel.activeCountChanged
        )
        recordObserved("activeCount (action)", on: "manager")

        // One block for several key paths; `change.keyPathName` says which fired.
        kvoController.observe(
            manager,
            keyPaths: [\.finishedCount, \.cancelledCount, \.speed],
            options: [.initial, .old, .new]
        ) { viewModel, _, change in
            viewModel.feed.record(.keyPaths, change, subject: "manager")
            viewModel.tally.update { counts in
                switch change.keyPathName {
                case "finishedCount": counts.finished = change.newValue as? Int ?? 0
                case "cancelledCount": counts.cancelled = change.newValue as? Int ?? 0
                default: counts.speed = change.newValue as? Double ?? 1
                }
            }
        }
        recordObserved("finishedCount, cancelledCount, speed (keyPaths)", on: "manager")

        // A string key path, through the optional `lastFinished` (a nil link gives an `Any` holding nil).
        try kvoController.observe(
            manager,
            keyPath: "lastFinished.name",
            options: [.old, .new]
        ) { viewModel, _, change in
            viewModel.feed.record(.stringKeyPath, change, subject: "manager")
            viewModel.tally.update { $0.lastFinished = change.newValue as? String }
        }
        recordObserved("lastFinished.name (string path)", on: "manager")
    }

    /// A token on the manager's computed `keyPath`, kept in the view model's bag, counting its changes.
    func observeWithToken(_ keyPath: KeyPath<DownloadManager, Double>) throws {
        // No observer: the handler captures what it writes to (thread-safe), and uses its object parameter.
        let feed = feed
        let tally = tally
        try manager.observe(keyPath, options: [.initial, .old, .new]) { _, change in
            feed.record(.token, change, subject: "manager")
            tally.update { $0.tokenChanges += 1 }
        }
        .store(in: tokens)
        recordObserved("overallProgress (token)", on: "manager")
    }

    /// A block with the observer, the object and the change: counts the bytes as they arrive.
    func observeTransfer(of download: Download) {
        kvoController.observe(
            download,
            keyPath: \.receivedBytes,
            options: [.old, .new]
        ) { viewModel, download, change in
            viewModel.feed.record(.block, change, subject: download.name)
            let delta = (change.newValue ?? 0) - (change.oldValue ?? 0)
            viewModel.tally.update { $0.receivedBytes += delta }
        }
    }

    /// The action of `activeCount`.
    nonisolated func activeCountChanged(_ change: KVOChange<Int>) {
        feed.record(.action, change, subject: "manager")
        tally.update { $0.active = change.newValue ?? 0 }
    }
}
