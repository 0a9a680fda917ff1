// A KVOMediator model that Swift's Observation tracks too, and so SwiftUI: the model of the DocC article
// "Using KVOMediator with Observation and SwiftUI", a render loop that tracks it as SwiftUI tracks a view's
// body, `Observations` over it, and a KVOController on the same object with old and new values.
import Foundation
import KVOMediator
import Observation

// MARK: The model

/// A player's state, for a view: observable by KVOMediator and by Observation.
@MainActor
final class PlayerModel: KeyValueObservable, Observable {
    let kvoRegistrar = KVORegistrar()
    @Observed var title = "Intro"
    @Observed var position = 0
    @Observed var queue: [String] = []

    /// Computed: tracked through the two properties it reads.
    var progress: String { "\(title) at \(position) s" }
}

// MARK: A view, as SwiftUI runs one

/// Renders what `body` reads, and renders again after the next change of any of it, as SwiftUI does
/// for a view: the reads are tracked with `withObservationTracking`; its `onChange`, called before the
/// change lands, schedules the next render on the main actor, so that changes made together render once.
@MainActor
final class PlayerView {
    private let model: PlayerModel
    private let rendered: AsyncStream<String>.Continuation
    /// Every frame rendered, in order.
    let frames: AsyncStream<String>

    init(model: PlayerModel) {
        self.model = model
        (frames, rendered) = AsyncStream.makeStream()
        render()
    }

    /// What SwiftUI would call the view's body.
    private var body: String {
        "\(model.progress), \(model.queue.count) queued"
    }

    private func render() {
        let frame = withObservationTracking {
            body
        } onChange: { [weak self] in
            Task { @MainActor in self?.render() }
        }
        rendered.yield(frame)
    }
}

// MARK: A KVOController on the same model

/// Logs position changes with their old and new values, as an FBKVOController observer would.
@MainActor
final class PositionLog {
    private(set) var lines: [String] = []
    lazy var kvoController = KVOController(observer: self)

    func start(_ model: PlayerModel) {
        kvoController.observe(model, keyPath: \.position, options: [.old, .new], delivery: .mainActor) {
            log,
            change in
            log.lines.append("\(change.oldValue!) -> \(change.newValue!)")
        }
    }
}

func expect(_ condition: Bool, _ message: String, line: Int = #line) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("ObservationStyle: FAILED at line \(line): \(message)\n".utf8))
    exit(1)
}

/// Runs the model, the view, the controller and `Observations` together, checking each result.
@MainActor
func run() async {
    let model = PlayerModel()
    let log = PositionLog()
    log.start(model)
    let view = PlayerView(model: model)
    var frames = view.frames.makeAsyncIterator()

    print("withObservationTracking renders the view, and renders it again after each change:")
    var frame = await frames.next()
    print("  ", frame ?? "none")
    expect(frame == "Intro at 0 s, 0 queued", "the first frame")

    model.position = 5
    model.position = 6  // in the same main-actor turn as the set before: one render, of the last value
    frame = await frames.next()
    print("  ", frame ?? "none")
    expect(frame == "Intro at 6 s, 0 queued", "two sets in one turn render once")

    model.mutableArrayValue(for: \.queue).append("Verse")  // a collection proxy reports to Observation too
    frame = await frames.next()
    print("  ", frame ?? "none")
    expect(frame == "Intro at 6 s, 1 queued", "a proxy's append renders")

    print("The KVOController on the same model saw every change once, with old and new values:")
    print("  ", log.lines)
    expect(log.lines == ["0 -> 5", "5 -> 6"], "the controller's changes")

    if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
        print("Observations yields the values of what it reads, one per transaction:")
        var progress = Observations { model.progress }.makeAsyncIterator()
        var values: [String] = []
        values.append(await progress.next()!)
        model.title = "Chorus"
        values.append(await progress.next()!)
        model.position = 0
        model.title = "Outro"
        values.append(await progress.next()!)
        print("  ", values)
        expect(values == ["Intro at 6 s", "Chorus at 6 s", "Outro at 0 s"], "the values Observations yields")
    }

    withExtendedLifetime((view, log)) {}
}

await run()
print("ObservationStyle: all expectations met")
