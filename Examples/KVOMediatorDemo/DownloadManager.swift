import Foundation
import KVOMediator

/// What the manager is asked to do; applied on its model queue, in the order asked.
enum DownloadCommand: Sendable {
    case enqueue(Download)
    case select(Download?)
    case togglePauseSelected
    case cancelSelected
    case clearFinished
    case faster
    case slower
    /// One step of the simulated network.
    case tick
}

/// The download list and a simulated network.
///
/// Every mutation happens on `modelQueue`, as with a networking library's delegate queue: synchronous
/// observers are called there, and main-actor observers get the changes queued to the main actor.
final class DownloadManager: KeyValueObservable, @unchecked Sendable {  // mutated only on `modelQueue`
    static let speeds = [0.25, 0.5, 1, 2, 4]
    /// How many downloads transfer at once; the others wait, queued.
    static let maximumActive = 3

    let kvoRegistrar = KVORegistrar()
    let modelQueue = DispatchQueue(label: "KVOMediatorDemo.model")
    @Observed var downloads: [Download] = []
    @Observed var selected: Download?
    @Observed var lastFinished: Download?
    @Observed var speed = 1.0
    @Observed var finishedCount = 0
    @Observed var cancelledCount = 0
    /// The network's clock; only the main actor starts and stops it.
    private var clock: DispatchSourceTimer?

    /// Computed over other objects: what it depends on changes as downloads come and go.
    var overallProgress: Double {
        let all = downloads
        let total = all.reduce(0) { $0 + $1.totalBytes }
        return total == 0 ? 0 : Double(all.reduce(0) { $0 + $1.receivedBytes }) / Double(total)
    }

    /// Computed from every download's state.
    var activeCount: Int {
        downloads.reduce(0) { $0 + ($1.state == .downloading ? 1 : 0) }
    }

    static func keyPathName(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \DownloadManager.overallProgress: "overallProgress"
        case \DownloadManager.activeCount: "activeCount"
        case \DownloadManager.selected?.status: "selected.status"
        default: nil
        }
    }

    /// Applies `command` later, on the model queue.
    func send(_ command: DownloadCommand) {
        modelQueue.async { self.apply(command) }
    }

    /// Applies `command` on the model queue and returns once it is done.
    func perform(_ command: DownloadCommand) {
        modelQueue.sync { apply(command) }
    }

    /// Starts ticking the network every `interval` seconds.
    @MainActor
    func startNetwork(interval: Double) {
        let clock = DispatchSource.makeTimerSource(queue: modelQueue)
        clock.schedule(deadline: .now() + interval, repeating: interval)
        clock.setEventHandler { [weak self] in self?.apply(.tick) }
        clock.resume()
        self.clock = clock
    }

    /// Stops the network and waits for a tick in progress.
    @MainActor
    func stopNetwork() {
        clock?.cancel()
        clock = nil
        modelQueue.sync {}
    }

    private func apply(_ command: DownloadCommand) {
        dispatchPrecondition(condition: .onQueue(modelQueue))
        switch command {
        case .enqueue(let download):
            mutableArrayValue(for: \.downloads).append(download)
            if selected == nil { selected = download }
        case .select(let download):
            if download.map({ candidate in downloads.contains { $0 === candidate } }) ?? true { selected = download }
        case .togglePauseSelected:
            guard let download = selected else { return }
            switch download.state {
            case .queued, .downloading: download.state = .paused
            case .paused: download.state = .queued
            case .finished, .cancelled: return
            }
        case .cancelSelected:
            guard let download = selected, download.state != .finished,
                let index = downloads.firstIndex(where: { $0 === download })
            else { return }
            download.state = .cancelled
            cancelledCount += 1
            mutableArrayValue(for: \.downloads).remove(at: index)
            selected = downloads.isEmpty ? nil : downloads[min(index, downloads.count - 1)]
        case .clearFinished:
            let finished = IndexSet(downloads.indices.filter { downloads[$0].state == .finished })
            guard !finished.isEmpty else { return }
            let selectionLeaves = selected?.state == .finished
            mutableArrayValue(for: \.downloads).remove(at: finished)
            if selectionLeaves { selected = downloads.first }
        case .faster, .slower:
            let current = Self.speeds.firstIndex(of: speed) ?? 2
            let next = min(max(current + (isFaster(command) ? 1 : -1), 0), Self.speeds.count - 1)
            if next != current { speed = Self.speeds[next] }
        case .tick:
            transferOneTick()
        }
        startQueuedDownloads()
    }

    private func isFaster(_ command: DownloadCommand) -> Bool {
        if case .faster = command { return true }
        return false
    }

    private func transferOneTick() {
        for download in downloads where download.state == .downloading {
            let chunk = Int(Double(download.bytesPerTick) * speed)
            download.receivedBytes = min(download.totalBytes, download.receivedBytes + chunk)
            if download.receivedBytes == download.totalBytes {
                download.state = .finished
                finishedCount += 1
                lastFinished = download
            }
        }
    }

    /// Starts queued downloads, in list order, while fewer than `maximumActive` transfer.
    private func startQueuedDownloads() {
        var active = activeCount
        for download in downloads where active < Self.maximumActive && download.state == .queued {
            download.state = .downloading
            active += 1
        }
    }
}
