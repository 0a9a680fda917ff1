#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A terminal's size in character cells.
struct TerminalSize: Equatable, Sendable {
    var rows: Int
    var columns: Int

    /// The size of the terminal on standard output, read now (it changes when the window does).
    static func current() -> TerminalSize {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_row > 0, size.ws_col > 0 else {
            return TerminalSize(rows: 24, columns: 80)
        }
        return TerminalSize(rows: Int(size.ws_row), columns: Int(size.ws_col))
    }
}

/// The terminal while the dashboard owns it: raw keys, the alternate screen, no cursor.
///
/// `enter()` saves the terminal's settings; `restore()` puts back everything it changed and is safe
/// to call more than once. Signals stay on (Ctrl-C still sends SIGINT, which the demo handles);
/// Ctrl-Z is turned off, since a stopped dashboard would leave the terminal raw.
@MainActor
final class TerminalSession {
    private var original = termios()
    private var entered = false

    /// Whether standard input and standard output are both terminals.
    nonisolated static var isInteractive: Bool {
        isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0
    }

    /// Switches to raw keys and the alternate screen, and hides the cursor.
    func enter() {
        guard !entered, tcgetattr(STDIN_FILENO, &original) == 0 else { return }
        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { characters in
            characters[Int(VMIN)] = 1
            characters[Int(VTIME)] = 0
            characters[Int(VSUSP)] = 0  // _POSIX_VDISABLE: no Ctrl-Z
        }
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw)
        entered = true
        emit("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    /// Shows the cursor, leaves the alternate screen and restores the saved settings.
    func restore() {
        guard entered else { return }
        entered = false
        emit("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &original)
    }

    /// Writes `text` to standard output, all of it, unbuffered.
    func emit(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                write(STDOUT_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written > 0 {
                offset += written
            } else if written < 0, errno != EINTR, errno != EAGAIN {
                return
            }
        }
    }
}
