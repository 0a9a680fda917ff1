import KVOMediator

/// Where a download is in its life.
enum DownloadState: String, Sendable {
    case queued, downloading, paused, finished, cancelled
}

/// One file being downloaded.
///
/// The view model makes it and observes it on the main actor, then hands it to the manager; from then
/// on only the manager's model queue mutates it. (Registering an observation reads the key path on the
/// calling thread, so it happens before the download is shared.)
final class Download: KeyValueObservable, @unchecked Sendable {  // mutated only on the model queue once handed over
    let kvoRegistrar = KVORegistrar()
    /// `@Observed` so that the string key path `"lastFinished.name"` reaches it; it never changes.
    @Observed var name: String
    @Observed var totalBytes: Int
    @Observed var receivedBytes = 0
    @Observed var state = DownloadState.queued
    /// How many bytes arrive per network tick at speed 1x.
    let bytesPerTick: Int

    /// Computed from two observed properties: observable with no declaration.
    var progress: Double {
        totalBytes == 0 ? 0 : Double(receivedBytes) / Double(totalBytes)
    }

    /// The `number`-th download of a run: its name and size depend only on `number`, so runs repeat.
    init(number: Int, networkScale: Int) {
        let names = ["report.pdf", "movie.mkv", "notes.txt", "photos.zip", "album.flac", "dataset.csv", "slides.key"]
        self.name = number <= names.count ? names[number - 1] : "file-\(number).bin"
        self.totalBytes = 400_000 + 200_000 * (number % 4)
        self.bytesPerTick = (6_000 + 2_000 * (number % 3)) * networkScale
    }

    /// Computed from three observed properties: `"42% downloading"`.
    var status: String {
        "\(Int((progress * 100).rounded(.down)))% \(state.rawValue)"
    }

    /// Swift gives no name to a computed property at run time; these are the ones change records show.
    static func keyPathName(for keyPath: AnyKeyPath) -> String? {
        switch keyPath {
        case \Download.progress: "progress"
        case \Download.status: "status"
        default: nil
        }
    }
}
