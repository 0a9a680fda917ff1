import Foundation
import KVOMediator

/// What the dashboard shows, kept up to date only through observations.
///
/// Callbacks arrive on the model queue; the terminal reads a snapshot from the main thread.
final class DashboardViewModel: @unchecked Sendable {  // `rows` and the counters are guarded by `lock`
    struct Row {
        var name: String
        var progress: Double
        var state: DownloadState
    }

    lazy var kvoController = KVOController(observer: self)
    private let lock = NSLock()
    private var rows: [ObjectIdentifier: Row] = [:]
    private var order: [ObjectIdentifier] = []
    private var overall = 0.0
    private var lastFinishedName: String?
    private var events: [String] = []
    private(set) var registrations = 0
    private(set) var notifications = 0

    init(manager: DownloadManager) {
        // Collection changes: insertions and removals of downloads, with their indexes.
        registering()
        kvoController.observe(manager, keyPath: \.downloads, options: [.new, .old]) { viewModel, _, change in
            viewModel.update { $0.notifications += 1 }
            viewModel.downloadsChanged(change)
        }
        // A computed property over every download, delivered to an action (an unapplied method).
        registering()
        kvoController.observe(
            manager,
            keyPath: \.overallProgress,
            options: [.initial, .new],
            action: DashboardViewModel.overallProgressChanged
        )
        // A chain through an optional: the name of the last finished download.
        registering()
        kvoController.observe(manager, keyPath: \.lastFinished?.name, options: [.new]) { viewModel, _, change in
            let name = change.newValue ?? nil
            viewModel.update {
                $0.notifications += 1
                $0.lastFinishedName = name
                if let name { $0.events.append("finished: \(name)") }
            }
        }
    }

    /// A snapshot for drawing.
    func snapshot() -> (rows: [Row], overall: Double, lastFinished: String?, events: [String]) {
        lock.withLock {
            let drained = events
            events = []
            return (order.compactMap { rows[$0] }, overall, lastFinishedName, drained)
        }
    }

    /// Counts one registration made through the controller.
    private func registering() {
        lock.withLock { registrations += 1 }
    }

    private func update(_ body: (DashboardViewModel) -> Void) {
        lock.withLock { body(self) }
    }

    private func downloadsChanged(_ change: KVOChange<[Download]>) {
        switch change.kind {
        case .insertion:
            for download in change.newValue ?? [] { track(download) }
        case .removal:
            for download in change.oldValue ?? [] {
                kvoController.unobserve(download)
                update {
                    $0.rows[ObjectIdentifier(download)] = nil
                    $0.order.removeAll { $0 == ObjectIdentifier(download) }
                    $0.events.append("cleared: \(download.name)")
                }
            }
        case .setting, .replacement:
            break
        }
    }

    private func track(_ download: Download) {
        let id = ObjectIdentifier(download)
        update {
            $0.rows[id] = Row(name: download.name, progress: 0, state: download.state)
            $0.order.append(id)
            $0.events.append("queued: \(download.name)")
        }
        // The computed progress and the state, each with a block that is handed the download.
        registering()
        kvoController.observe(download, keyPath: \.progress, options: [.new]) { viewModel, download, change in
            viewModel.update {
                $0.notifications += 1
                $0.rows[ObjectIdentifier(download)]?.progress = change.newValue ?? 0
            }
        }
        registering()
        kvoController.observe(download, keyPath: \.state, options: [.new]) { viewModel, download, change in
            viewModel.update {
                $0.notifications += 1
                if let state = change.newValue { $0.rows[ObjectIdentifier(download)]?.state = state }
            }
        }
    }

    private func overallProgressChanged(_ change: KVOChange<Double>) {
        update {
            $0.notifications += 1
            $0.overall = change.newValue ?? 0
        }
    }
}
