// A trivial value of at most 8 bytes carried as a word, and the stores and loads of such a field: how a
// set of an `Int`, a `Double` or a `Bool` property reaches one non-generic function out of line.

/// A trivial value of at most 8 bytes (an `Int`, a `Double`, a `Bool`, an enum without payloads) carried
/// as a word: its bytes are the word's low bytes, so a non-generic function can store it, and lend it by
/// address as the value it is (`ValueAddress(_:)` of the word).
///
/// Why it is sound: the type has no reference to count and no alignment above 8, and on a little-endian
/// machine (the only one that uses this) a word's first bytes are its low bytes.
@usableFromInline
enum TrivialWord {
    /// Whether `Value` travels as a word (a constant once the caller is specialised).
    @inlinable
    @inline(__always)
    static func fits<Value>(_: Value.Type) -> Bool {
        #if _endian(little)
        return _isPOD(Value.self) && MemoryLayout<Value>.size <= 8 && MemoryLayout<Value>.alignment <= 8
        #else
        return false
        #endif
    }

    /// `value`'s bytes as a word's low bytes (the rest zero). Only for a `Value` that `fits`.
    @inlinable
    @inline(__always)
    static func word<Value>(of value: Value) -> UInt64 {
        var word: UInt64 = 0
        withUnsafeMutableBytes(of: &word) { $0.storeBytes(of: value, as: Value.self) }
        return word
    }
}

extension FieldAddress {
    /// The first `size` bytes of a trivial field of at most 8 bytes, as the low bytes of a word (see
    /// `TrivialWord`).
    @inline(__always)
    func loadWord(size: Int) -> UInt64 {
        switch size {
        case 8: return raw.loadUnaligned(as: UInt64.self)
        case 4: return UInt64(raw.loadUnaligned(as: UInt32.self))
        case 1: return UInt64(raw.load(as: UInt8.self))
        default:
            var word: UInt64 = 0
            withUnsafeMutableBytes(of: &word) { $0.baseAddress!.copyMemory(from: raw, byteCount: size) }
            return word
        }
    }

    /// Stores the low `size` bytes of `word` as a trivial field of at most 8 bytes (see `TrivialWord`).
    @inline(__always)
    func storeWord(_ word: UInt64, size: Int) {
        // (The commonest size first: a switch tested it last.)
        if size == 8 { return raw.storeBytes(of: word, as: UInt64.self) }
        switch size {
        case 4: raw.storeBytes(of: UInt32(truncatingIfNeeded: word), as: UInt32.self)
        case 1: raw.storeBytes(of: UInt8(truncatingIfNeeded: word), as: UInt8.self)
        default: storeBytes(of: word, count: size)
        }
    }

    /// `storeWord` of a size other than 1, 4 and 8 (a rare one: 0, 2, 3, 5, 6, 7), out of line, so that
    /// the call it makes does not make `storeWord`'s callers save registers.
    @inline(never)
    private func storeBytes(of word: UInt64, count: Int) {
        withUnsafeBytes(of: word) { raw.copyMemory(from: $0.baseAddress!, byteCount: count) }
    }
}
