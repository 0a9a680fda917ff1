import Foundation
import KVOMediator

// A download manager whose dashboard is driven entirely by KVOMediator observations.
// Usage: KVOMediatorDemo [--plain] [--downloads N] [--help]

let usage = """
    KVOMediatorDemo: a download manager with a live dashboard, updated only through KVOController.

    usage: swift run KVOMediatorDemo [--plain] [--downloads N] [--help]
      --plain        print events as plain lines (the default when standard output is not a terminal)
      --downloads N  how many files to download, 1...50 (default 5)
      --help         show this help
    """

var arguments = CommandLine.arguments.dropFirst()
var plain = !Dashboard.standardOutputIsTerminal
var count = 5
while let argument = arguments.popFirst() {
    switch argument {
    case "--plain":
        plain = true
    case "--downloads":
        guard let value = arguments.popFirst().flatMap(Int.init), (1...50).contains(value) else {
            FileHandle.standardError.write(Data("--downloads takes a whole number from 1 to 50\n\n\(usage)\n".utf8))
            exit(2)
        }
        count = value
    case "--help", "-h":
        print(usage)
        exit(0)
    default:
        FileHandle.standardError.write(Data("unknown option \(argument)\n\n\(usage)\n".utf8))
        exit(2)
    }
}

let names = ["report.pdf", "movie.mkv", "notes.txt", "photos.zip", "album.flac", "dataset.csv", "slides.key"]

/// Runs the whole scenario; returns what must be gone afterwards, and the counts to report.
func runScenario(
    count: Int,
    plain: Bool
) -> (lives: [() -> AnyObject?], registrations: Int, notifications: Int, observations: Int) {
    let manager = DownloadManager()
    let viewModel = DashboardViewModel(manager: manager)
    var dashboard = Dashboard(live: !plain)
    let transfers = DispatchGroup()
    var downloads: [Download] = []

    for index in 0..<count {
        let download = Download(
            name: count <= names.count ? names[index] : "file-\(index + 1).bin",
            totalBytes: 40_000 + 15_000 * (index % 4)
        )
        downloads.append(download)
        manager.start(
            download,
            chunk: 2_000 + 500 * (index % 3),
            pause: 0.02 + 0.005 * Double(index % 3),
            group: transfers
        )
        dashboard.draw(viewModel.snapshot())
        Thread.sleep(forTimeInterval: 0.05)
    }
    // Redraw from the view model until every transfer is done; clear finished ones as we go.
    var rounds = 0
    while transfers.wait(timeout: .now() + 0.05) == .timedOut {
        rounds += 1
        if rounds % 10 == 0 { manager.clearFinished() }
        dashboard.draw(viewModel.snapshot())
    }
    dashboard.draw(viewModel.snapshot())
    manager.clearFinished()
    dashboard.draw(viewModel.snapshot())

    let observations = viewModel.kvoController.observationCount
    let lives: [() -> AnyObject?] =
        [
            { [weak manager] in manager }, { [weak viewModel] in viewModel },
            { [weak controller = viewModel.kvoController] in controller },
        ]
        + downloads.map { download in { [weak download] in download } }
    return (lives, viewModel.registrations, viewModel.notifications, observations)
}

let result = runScenario(count: count, plain: plain)
let released = result.lives.allSatisfy { $0() == nil }
print(
    """

    summary
      observations registered:  \(result.registrations)
      observations still open:  \(result.observations) (the manager's three; downloads were unobserved as they left)
      notifications delivered:  \(result.notifications)
      models, view model and controller released: \(released ? "yes" : "NO")
    """
)
exit(released ? 0 : 1)
