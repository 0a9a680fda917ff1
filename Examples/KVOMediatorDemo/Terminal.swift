#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Draws the dashboard: redrawn in place on a terminal, or as plain lines of events otherwise.
struct Dashboard {
    let live: Bool
    private var drawnLines = 0
    private var printedPercent: [String: Int] = [:]

    init(live: Bool) {
        self.live = live
    }

    static var standardOutputIsTerminal: Bool { isatty(STDOUT_FILENO) != 0 }

    mutating func draw(
        _ snapshot: (rows: [DashboardViewModel.Row], overall: Double, lastFinished: String?, events: [String])
    ) {
        if live {
            var lines = snapshot.rows.map { row in
                "\(pad(row.name, 14)) \(bar(row.progress)) \(percent(row.progress)) \(row.state.rawValue)"
            }
            lines.append("overall        \(bar(snapshot.overall)) \(percent(snapshot.overall))")
            lines.append("last finished: \(snapshot.lastFinished ?? "-")")
            if drawnLines > 0 { print("\u{1B}[\(drawnLines)A", terminator: "") }
            for line in lines { print("\u{1B}[2K" + line) }
            for _ in lines.count..<max(lines.count, drawnLines) { print("\u{1B}[2K") }
            drawnLines = max(lines.count, drawnLines)
        } else {
            for event in snapshot.events { print(event) }
            for row in snapshot.rows {
                let quarter = Int(row.progress * 4) * 25
                if quarter > printedPercent[row.name, default: -1] {
                    printedPercent[row.name] = quarter
                    print("\(pad(row.name, 14)) \(bar(row.progress)) \(quarter)%")
                }
            }
        }
        fflush(nil)  // all output streams
    }

    private func bar(_ progress: Double) -> String {
        let filled = max(0, min(24, Int(progress * 24)))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 24 - filled) + "]"
    }

    private func percent(_ progress: Double) -> String {
        let text = "\(Int(progress * 100))%"
        return String(repeating: " ", count: max(0, 4 - text.count)) + text
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? String(text.prefix(width)) : text + String(repeating: " ", count: width - text.count)
    }
}
