import Foundation
import KVOMediator

/// A file being downloaded: its bytes arrive on a background thread.
final class Download: KeyValueObservable, @unchecked Sendable {  // each property is written by one thread
    let kvoRegistrar = KVORegistrar()
    let name: String
    let totalBytes: Int
    @Observed var receivedBytes = 0
    var progress: Double { Double(receivedBytes) / Double(totalBytes) }

    init(name: String, totalBytes: Int) {
        self.name = name
        self.totalBytes = totalBytes
    }
}

/// Shows downloads; it observes them only through its KVOController.
final class DownloadListView {
    lazy var kvoController = KVOController(observer: self)
    private let lock = NSLock()
    private var lines: [String: String] = [:]
    private(set) var updates = 0

    func show(_ download: Download) {
        kvoController.observe(download, keyPath: \.progress, options: [.initial, .new]) { view, download, change in
            view.render(download.name, progress: change.newValue ?? 0)
        }
    }

    private func render(_ name: String, progress: Double) {
        let filled = Int(progress * 20)
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 20 - filled)
        let line = "\(name.padding(toLength: 12, withPad: " ", startingAt: 0)) [\(bar)] \(Int(progress * 100))%"
        lock.withLock {
            updates += 1
            if lines[name] != line {
                lines[name] = line
                print(line)
            }
        }
    }
}

let downloads = [
    Download(name: "report.pdf", totalBytes: 4_000),
    Download(name: "movie.mkv", totalBytes: 10_000),
    Download(name: "notes.txt", totalBytes: 1_000),
]
weak var weakView: DownloadListView?
do {
    let view = DownloadListView()
    weakView = view
    downloads.forEach(view.show)
    DispatchQueue.concurrentPerform(iterations: downloads.count) { index in
        let download = downloads[index]
        while download.receivedBytes < download.totalBytes {
            download.receivedBytes = min(download.totalBytes, download.receivedBytes + download.totalBytes / 10)
        }
    }
    print("\(view.kvoController.observationCount) observations, \(view.updates) notifications delivered")
}
print("view and controller released: \(weakView == nil)")
