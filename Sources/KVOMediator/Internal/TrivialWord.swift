// A trivial value of 1, 2, 4 or 8 bytes carried as a word, and the stores and loads of such a field: how a
// set of an `Int`, a `Double` or a `Bool` property reaches one non-generic function out of line.

/// A trivial value of 1, 2, 4 or 8 bytes (an `Int`, a `Double`, a `Bool`, an enum without payloads)
/// carried as a word: its bytes are the word's low bytes, so a non-generic function can store it, and lend
/// it by address as the value it is (`ValueAddress(_:)` of the word).
///
/// Why it is sound: the type has no reference to count, its bytes are reinterpreted only as an unsigned
/// integer of its own size (`unsafeBitCast` checks the sizes agree), and on a little-endian machine (the
/// only one that uses this) a word's first bytes are its low bytes. Its fields are stored and loaded
/// unaligned, whatever the type's alignment.
@usableFromInline
enum TrivialWord {
    /// Whether `Value` travels as a word (a constant once the caller is specialised).
    @inlinable
    @inline(__always)
    static func fits<Value>(_: Value.Type) -> Bool {
        #if _endian(little)
        let size = MemoryLayout<Value>.size
        return _isPOD(Value.self) && (size == 8 || size == 4 || size == 2 || size == 1)
        #else
        return false
        #endif
    }

    /// `value`'s bytes as a word's low bytes (the rest zero). Only for a `Value` that `fits`. (No address of
    /// a local is taken: that would give every setter a stack protector.)
    @inlinable
    @inline(__always)
    static func word<Value>(of value: Value) -> UInt64 {
        switch MemoryLayout<Value>.size {
        case 8: return unsafeBitCast(value, to: UInt64.self)
        case 4: return UInt64(unsafeBitCast(value, to: UInt32.self))
        case 2: return UInt64(unsafeBitCast(value, to: UInt16.self))
        default: return UInt64(unsafeBitCast(value, to: UInt8.self))
        }
    }
}

extension FieldAddress {
    /// A trivial field of 1, 2, 4 or 8 bytes, as the low bytes of a word (see `TrivialWord`).
    @inline(__always)
    func loadWord(size: Int) -> UInt64 {
        switch size {
        case 8: return raw.loadUnaligned(as: UInt64.self)
        case 4: return UInt64(raw.loadUnaligned(as: UInt32.self))
        case 2: return UInt64(raw.loadUnaligned(as: UInt16.self))
        default: return UInt64(raw.load(as: UInt8.self))
        }
    }

    /// Stores the low `size` bytes of `word` as a trivial field of 1, 2, 4 or 8 bytes (see `TrivialWord`).
    @inline(__always)
    func storeWord(_ word: UInt64, size: Int) {
        // (The commonest size first: a switch tested it last.)
        if _fastPath(size == 8) { return raw.storeBytes(of: word, as: UInt64.self) }
        switch size {
        case 4: raw.storeBytes(of: UInt32(truncatingIfNeeded: word), as: UInt32.self)
        case 2: raw.storeBytes(of: UInt16(truncatingIfNeeded: word), as: UInt16.self)
        default: raw.storeBytes(of: UInt8(truncatingIfNeeded: word), as: UInt8.self)
        }
    }
}
