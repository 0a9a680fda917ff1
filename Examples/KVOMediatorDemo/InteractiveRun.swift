/// The live dashboard: runs until `q` (exit 0), Ctrl-C (130) or another termination signal (128 + it),
/// and always gives the terminal back as it found it.
@MainActor
enum InteractiveRun {
    /// Seconds between frames, and between network ticks.
    static let frameInterval = 0.1
    static let tickInterval = 0.2

    static func run(downloads: Int) async -> Int32 {
        let terminal = TerminalSession()
        let glyphs = Glyphs.forLocale
        let feed = ObservationFeed()
        var status: Int32 = 0
        terminal.enter()
        let events = TerminalEvents(frameInterval: frameInterval)
        let release: DemoRun.Release
        do {
            release = try await DemoRun.run(
                downloads: downloads,
                networkScale: 1,
                waitsForModel: false,
                feed: feed
            ) { viewModel in
                viewModel.manager.startNetwork(interval: tickInterval)
                status = await loop(events: events, viewModel: viewModel, terminal: terminal, glyphs: glyphs)
            }
        } catch {
            terminal.restore()
            events.stop()
            print("KVOMediatorDemo: \(error)")
            return 1
        }
        // The terminal first: a signal after `stop()` has its default action again.
        terminal.restore()
        events.stop()
        let released = release.alive.isEmpty
        print(
            "KVOMediatorDemo: \(feed.firedTotal) callbacks fired; models, view model and controller released: "
                + (released ? "yes" : "NO (\(release.alive.joined(separator: ", ")))")
        )
        return released ? status : 1
    }

    /// Draws frames and applies keys until the user quits; returns the exit status.
    private static func loop(
        events: TerminalEvents,
        viewModel: DashboardViewModel,
        terminal: TerminalSession,
        glyphs: Glyphs
    ) async -> Int32 {
        var renderer = FrameRenderer()
        func draw() {
            // The size is read for every frame, so a resized window is filled at the next frame.
            let size = TerminalSize.current()
            let lines = DashboardScreen.lines(for: viewModel, size: size, glyphs: glyphs)
            if let frame = renderer.frame(lines, size: size) { terminal.emit(frame) }
        }
        for await event in events.stream {
            switch event {
            case .frame:
                draw()
            case .resized:
                renderer.invalidate()
                draw()
            case .key(let key):
                if let status = apply(key, to: viewModel) { return status }
            case .signal(let number):
                return 128 + number
            case .inputClosed:
                return 0
            }
        }
        return 0
    }

    /// Applies a key; returns an exit status when the key ends the dashboard.
    private static func apply(_ key: Key, to viewModel: DashboardViewModel) -> Int32? {
        switch key {
        case .interrupt: return 130
        case .up, .character("k"): viewModel.selectPrevious()
        case .down, .character("j"): viewModel.selectNext()
        case .character("p"), .character(" "): viewModel.togglePause()
        case .character("c"): viewModel.cancelSelected()
        case .character("a"): viewModel.addDownload()
        case .character("+"), .character("="): viewModel.faster()
        case .character("-"), .character("_"): viewModel.slower()
        case .character("x"): viewModel.clearFinished()
        case .character("q"), .character("Q"): return 0
        case .character: break
        }
        return nil
    }
}
