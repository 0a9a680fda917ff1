/// How the rows of a screen are shared among the dashboard's panes, and which part of a list a pane shows.
///
/// The screen is: title, explanation, keys, two summary lines, then three panes (downloads,
/// observations, registrations), each a header and its rows. The panes get what is left: the
/// downloads up to half of it, the registrations a few rows, the observations the rest. A pane with
/// more rows than it can show shows a window of them.
struct PaneLayout: Equatable {
    /// Title, explanation, keys, two summary lines and the three pane headers.
    static let fixedRows = 8
    /// Below this, the dashboard shows only a note asking for a larger terminal.
    static let minimum = TerminalSize(rows: 14, columns: 40)

    let downloads: Int
    let observations: Int
    let registrations: Int

    init(rows: Int, downloadCount: Int) {
        let content = max(0, rows - Self.fixedRows)
        registrations = content >= 20 ? 4 : content >= 10 ? 3 : min(content, 1)
        let shared = max(0, content - registrations)
        downloads = min(max(1, downloadCount), max(1, shared / 2))
        observations = max(0, shared - downloads)
    }

    /// Whether a screen of `size` can show the dashboard.
    static func fits(_ size: TerminalSize) -> Bool {
        size.rows >= minimum.rows && size.columns >= minimum.columns
    }

    /// The rows of a list of `count` to show in `visible` rows: all of them if they fit, otherwise a
    /// window with `focus` in it, centred where the list allows.
    static func window(count: Int, visible: Int, focus: Int?) -> Range<Int> {
        guard count > visible else { return 0..<count }
        let start = min(max(0, (focus ?? 0) - visible / 2), count - visible)
        return start..<(start + visible)
    }
}
