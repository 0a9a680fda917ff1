/// The dashboard's screen, built from the view model alone: one `ScreenLine` per row, fitted to the size.
@MainActor
enum DashboardScreen {
    static let title = "KVOMediator live demo: a download manager"
    static let explanation = "Every value below arrives through a key-value observation; nothing polls."

    static func keys(_ glyphs: Glyphs) -> String {
        "keys: \(glyphs.upDown) select  p pause/resume  c cancel  a add  +/- speed  x clear  q quit"
    }

    /// The lines of a screen of `size`: never more than its rows.
    static func lines(for viewModel: DashboardViewModel, size: TerminalSize, glyphs: Glyphs) -> [ScreenLine] {
        var lines = [
            ScreenLine(text: title, style: .bold),
            ScreenLine(text: explanation),
            ScreenLine(text: keys(glyphs), style: .dim),
        ]
        guard PaneLayout.fits(size) else {
            let minimum = PaneLayout.minimum
            let note =
                "This terminal is \(size.columns)x\(size.rows); the dashboard needs \(minimum.columns)x\(minimum.rows) "
                + "or more. Enlarge the window, or press q to quit."
            lines += TextLayout.wrapped(note, width: size.columns).map { ScreenLine(text: $0) }
            return Array(lines.prefix(size.rows))
        }
        let layout = PaneLayout(rows: size.rows, downloadCount: viewModel.order.count)
        lines += summary(of: viewModel, width: size.columns)
        lines += downloads(of: viewModel, rows: layout.downloads, width: size.columns, glyphs: glyphs)
        lines += observations(in: viewModel.feed, rows: layout.observations, width: size.columns, glyphs: glyphs)
        lines += registrations(of: viewModel, rows: layout.registrations, width: size.columns, glyphs: glyphs)
        return Array(lines.prefix(size.rows))
    }

    /// Two lines: the stream's overall progress, the chain's selected progress and the tallies.
    private static func summary(of viewModel: DashboardViewModel, width: Int) -> [ScreenLine] {
        let tally = viewModel.tally.current
        let selected = viewModel.selectedID.flatMap { viewModel.items[$0]?.name } ?? "none"
        let overall = viewModel.overallProgress ?? 0
        let first =
            "overall \(TextLayout.bar(overall, width: 16))\(TextLayout.percent(overall))  speed "
            + "\(TextLayout.speed(tally.speed))  selected \(selected) \(viewModel.selectedStatus ?? "")"
        let second =
            "active \(tally.active)   finished \(tally.finished)   cancelled \(tally.cancelled)   "
            + "received \(TextLayout.bytes(tally.receivedBytes))   last finished \(tally.lastFinished ?? "-")"
        return [ScreenLine(text: first), ScreenLine(text: second)]
    }

    /// The downloads pane: a header and a window of the list that keeps the selection in view.
    private static func downloads(
        of viewModel: DashboardViewModel,
        rows: Int,
        width: Int,
        glyphs: Glyphs
    ) -> [ScreenLine] {
        let order = viewModel.order
        let focus = viewModel.selectedID.flatMap { order.firstIndex(of: $0) }
        let window = PaneLayout.window(count: order.count, visible: rows, focus: focus)
        var title = "downloads: \(order.count)"
        if window.count < order.count {
            title += " (\(window.lowerBound + 1)-\(window.upperBound) shown; \(glyphs.upDown) scrolls)"
        }
        var lines = [ScreenLine(text: TextLayout.header(title, width: width, rule: glyphs.rule), style: .bold)]
        let barWidth = min(30, max(10, width - 32))
        for index in window {
            guard let item = viewModel.items[order[index]] else { continue }
            let isSelected = order[index] == viewModel.selectedID
            let text =
                (isSelected ? "> " : "  ") + item.name.padded(to: 12) + " "
                + TextLayout.bar(item.progress, width: barWidth) + " " + TextLayout.percent(item.progress) + " "
                + item.state.rawValue
            lines.append(ScreenLine(text: text, style: isSelected ? .inverse : .plain))
        }
        if order.isEmpty { lines.append(ScreenLine(text: "  (no downloads: press a to add one)", style: .dim)) }
        while lines.count < rows + 1 { lines.append(ScreenLine(text: "")) }
        return lines
    }

    /// The observations pane: the newest callbacks, newest last.
    private static func observations(
        in feed: ObservationFeed,
        rows: Int,
        width: Int,
        glyphs: Glyphs
    ) -> [ScreenLine] {
        let title =
            "observations: style, change.keyPathName, object, old \(glyphs.arrow) new (\(feed.firedTotal) fired)"
        var lines = [ScreenLine(text: TextLayout.header(title, width: width, rule: glyphs.rule), style: .bold)]
        lines += feed.recentObservations(rows).map { ScreenLine(text: $0.line(arrow: glyphs.arrow)) }
        while lines.count < rows + 1 { lines.append(ScreenLine(text: "")) }
        return lines
    }

    /// The registrations pane: the view model's observe and unobserve calls, newest last, with the counts now.
    private static func registrations(
        of viewModel: DashboardViewModel,
        rows: Int,
        width: Int,
        glyphs: Glyphs
    ) -> [ScreenLine] {
        let counts = viewModel.registrationCounts
        let title = "registrations: controller \(counts.controller), tokens \(counts.tokens), streams \(counts.streams)"
        var lines = [ScreenLine(text: TextLayout.header(title, width: width, rule: glyphs.rule), style: .bold)]
        lines += viewModel.feed.recentRegistrations(rows).map { ScreenLine(text: $0.line(arrow: glyphs.arrow)) }
        return lines
    }
}
