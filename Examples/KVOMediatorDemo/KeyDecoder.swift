/// A key the dashboard understands.
enum Key: Equatable, Sendable {
    case character(Character)
    case up
    case down
    /// Ctrl-C typed while signals are off (with them on, it arrives as SIGINT instead).
    case interrupt
}

/// Turns the bytes a terminal sends for keys into keys.
///
/// Printable ASCII is a character; `ESC [ A` / `ESC O A` (and `B`) are the up and down arrows, in
/// normal and application cursor mode; other escape sequences (function keys, other arrows) and
/// other control bytes are skipped whole. A read gives whole sequences, as terminals send them.
enum KeyDecoder {
    static func keys(in bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x03:
                keys.append(.interrupt)
            case 0x1B:
                if let arrow = escapeSequence(in: bytes, from: &index) { keys.append(arrow) }
            case 0x20...0x7E:
                keys.append(.character(Character(Unicode.Scalar(byte))))
            default:
                break
            }
        }
        return keys
    }

    /// Reads the rest of an escape sequence starting at `index` (just after ESC), leaving `index` after
    /// it; returns the arrow it is, if it is one. A lone ESC is nothing.
    private static func escapeSequence(in bytes: [UInt8], from index: inout Int) -> Key? {
        guard index < bytes.count else { return nil }
        let introducer = bytes[index]
        index += 1
        switch introducer {
        case UInt8(ascii: "O"):  // SS3: one final byte
            guard index < bytes.count else { return nil }
            index += 1
            return arrow(bytes[index - 1])
        case UInt8(ascii: "["):  // CSI: parameter and intermediate bytes, then one final byte
            while index < bytes.count, !(0x40...0x7E).contains(bytes[index]) { index += 1 }
            guard index < bytes.count else { return nil }
            index += 1
            return arrow(bytes[index - 1])
        default:  // Alt+key: the key itself
            return nil
        }
    }

    private static func arrow(_ final: UInt8) -> Key? {
        switch final {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        default: nil
        }
    }
}
