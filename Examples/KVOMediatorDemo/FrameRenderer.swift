/// One line of the screen: text and how it is shown.
struct ScreenLine: Equatable {
    enum Style: Equatable {
        case plain, bold, dim, inverse
    }

    var text: String
    var style = Style.plain
}

/// Turns a screen of lines into the escape sequences that redraw it in place.
///
/// Each frame moves the cursor to each line that changed, writes it and clears the rest of that line,
/// then clears below the last line: the screen never scrolls and nothing reaches the scrollback. Lines
/// are clipped to the width, and there are never more lines than rows.
struct FrameRenderer {
    private var previous: [ScreenLine] = []
    private var previousSize = TerminalSize(rows: 0, columns: 0)

    /// The bytes to write for `lines` on a screen of `size`, or nil when nothing changed.
    mutating func frame(_ lines: [ScreenLine], size: TerminalSize) -> String? {
        let lines = Array(lines.prefix(size.rows))
        let resized = size != previousSize
        if !resized, lines == previous { return nil }
        var output = resized ? "\u{1B}[2J" : ""
        for (row, line) in lines.enumerated() where resized || row >= previous.count || previous[row] != line {
            output += "\u{1B}[\(row + 1);1H" + Self.draw(line, width: size.columns)
        }
        // Clear below the last line, if there is a row below it (moving past the bottom row stops
        // on it, and the clear would erase it).
        if lines.count < size.rows, resized || lines.count < previous.count {
            output += "\u{1B}[\(lines.count + 1);1H\u{1B}[J"
        }
        previous = lines
        previousSize = size
        return output
    }

    /// Forgets what is on the screen, so that the next frame draws everything.
    mutating func invalidate() {
        previous = []
        previousSize = TerminalSize(rows: 0, columns: 0)
    }

    private static func draw(_ line: ScreenLine, width: Int) -> String {
        // An inverse line is padded to the full width, so that its highlight spans the row. A line
        // as wide as the screen gets no clear-to-end: the cursor already waits past the last column,
        // and clearing there would erase that column.
        let text = line.style == .inverse ? line.text.padded(to: width) : line.text.clipped(to: width)
        let clear = text.count < width ? "\u{1B}[K" : ""
        switch line.style {
        case .plain: return text + clear
        case .bold: return "\u{1B}[1m" + text + "\u{1B}[0m" + clear
        case .dim: return "\u{1B}[2m" + text + "\u{1B}[0m" + clear
        case .inverse: return "\u{1B}[7m" + text + "\u{1B}[0m" + clear
        }
    }
}
