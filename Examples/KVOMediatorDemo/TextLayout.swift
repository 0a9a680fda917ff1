import Foundation

/// The characters the dashboard draws with: Unicode where the locale says UTF-8, ASCII otherwise
/// (and always in the plain run, whose output CI compares).
struct Glyphs: Sendable {
    let arrow: String
    let rule: Character
    let upDown: String

    static let ascii = Glyphs(arrow: "->", rule: "-", upDown: "up/down")
    static let unicode = Glyphs(arrow: "→", rule: "─", upDown: "↑/↓")

    /// Unicode when `LC_ALL`, `LC_CTYPE` or `LANG` (the first one set) names UTF-8.
    static var forLocale: Glyphs {
        let environment = ProcessInfo.processInfo.environment
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? ""
        let utf8 = locale.lowercased().contains("utf-8") || locale.lowercased().contains("utf8")
        return utf8 ? .unicode : .ascii
    }
}

extension String {
    /// Cut or padded with spaces to exactly `width` characters. (Everything drawn is one column per character.)
    func padded(to width: Int) -> String {
        let width = max(0, width)
        return count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }

    /// Cut to at most `width` characters.
    func clipped(to width: Int) -> String {
        count > width ? String(prefix(max(0, width))) : self
    }
}

/// Small pieces of the dashboard's text.
enum TextLayout {
    /// `[#########...........]`, `width` characters in all.
    static func bar(_ fraction: Double, width: Int) -> String {
        let inside = max(0, width - 2)
        let filled = min(inside, max(0, Int((fraction * Double(inside)).rounded(.down))))
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: inside - filled) + "]"
    }

    /// ` 42%`: four characters.
    static func percent(_ fraction: Double) -> String {
        let text = "\(Int((fraction * 100).rounded(.down)))%"
        return String(repeating: " ", count: max(0, 4 - text.count)) + text
    }

    /// `1.2 MB`, `340 KB`.
    static func bytes(_ count: Int) -> String {
        count >= 1_000_000
            ? String(format: "%.1f MB", Double(count) / 1_000_000) : "\(count / 1_000) KB"
    }

    /// `1x`, `0.25x`.
    static func speed(_ speed: Double) -> String {
        speed == speed.rounded() ? "\(Int(speed))x" : "\(speed)x"
    }

    /// `text` broken into lines of at most `width` characters, between words where it can be.
    static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
            while line.count > width, width > 0 {
                lines.append(String(line.prefix(width)))
                line = String(line.dropFirst(width))
            }
        }
        return line.isEmpty ? lines : lines + [line]
    }

    /// `── title ─────`: a pane's header, filled with `rule` to `width`.
    static func header(_ title: String, width: Int, rule: Character) -> String {
        let start = String(repeating: rule, count: 2) + " " + title + " "
        return start.count >= width
            ? start.clipped(to: width) : start + String(repeating: rule, count: width - start.count)
    }
}
