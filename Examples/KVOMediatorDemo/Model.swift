import Foundation
import KVOMediator

/// Where a download is in its life.
enum DownloadState: String, Sendable {
    case queued, downloading, finished
}

/// One file being downloaded. Every model mutation happens on the manager's serial model queue, as
/// with a networking library's delegate queue, so observers are notified there, in order.
final class Download: KeyValueObservable, @unchecked Sendable {  // mutated only on the model queue
    let kvoRegistrar = KVORegistrar()
    let name: String
    @Observed var totalBytes: Int
    @Observed var receivedBytes = 0
    @Observed var state = DownloadState.queued

    /// Computed from two observed properties: observable with no declaration.
    var progress: Double { totalBytes == 0 ? 0 : Double(receivedBytes) / Double(totalBytes) }

    init(name: String, totalBytes: Int) {
        self.name = name
        self.totalBytes = totalBytes
    }
}

/// The list of downloads, which grows as files are queued and shrinks as finished ones are cleared.
final class DownloadManager: KeyValueObservable, @unchecked Sendable {  // mutated only on the model queue
    let kvoRegistrar = KVORegistrar()
    let modelQueue = DispatchQueue(label: "demo.model")
    @Observed var downloads: [Download] = []
    @Observed var lastFinished: Download?

    /// Computed over other objects: its dependencies change as downloads come and go.
    var overallProgress: Double {
        let all = downloads
        let total = all.reduce(0) { $0 + $1.totalBytes }
        return total == 0 ? 1 : Double(all.reduce(0) { $0 + $1.receivedBytes }) / Double(total)
    }

    /// Queues a download (an insertion into the observed list) and starts its transfer thread.
    func start(_ download: Download, chunk: Int, pause: TimeInterval, group: DispatchGroup) {
        modelQueue.sync { mutableArrayValue(for: \.downloads).append(download) }
        group.enter()
        let thread = Thread { [self] in
            defer { group.leave() }
            modelQueue.sync { download.state = .downloading }
            var finished = false
            while !finished {
                Thread.sleep(forTimeInterval: pause)  // the network
                modelQueue.sync {
                    download.receivedBytes = min(download.totalBytes, download.receivedBytes + chunk)
                    finished = download.receivedBytes == download.totalBytes
                }
            }
            modelQueue.sync {
                download.state = .finished
                lastFinished = download
            }
        }
        thread.start()
    }

    /// Removes finished downloads from the list (removals, with their indexes).
    func clearFinished() {
        modelQueue.sync {
            let finished = IndexSet(downloads.indices.filter { downloads[$0].state == .finished })
            mutableArrayValue(for: \.downloads).remove(at: finished)
            lastFinished = nil
        }
    }
}
