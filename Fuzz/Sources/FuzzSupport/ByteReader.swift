/// Reads a fuzz input from the front, one decision at a time.
///
/// Every read succeeds: past the end it returns zeros, so that any input, however short, is a
/// complete case, and libFuzzer's mutations at the end of an input only ever add decisions.
public struct ByteReader {
    private var bytes: ArraySlice<UInt8>

    /// Reads `bytes`.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes[...]
    }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { bytes.isEmpty }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        bytes.popFirst() ?? 0
    }

    /// A number in `0..<bound` from the next byte (`bound` is at most 256).
    public mutating func int(below bound: Int) -> Int {
        precondition(bound > 0 && bound <= 256, "ByteReader.int(below:): bound \(bound) out of 1...256")
        return Int(byte()) % bound
    }

    /// Whether bit `bit` of `byte` is set: for flags packed into one byte.
    public static func flag(_ byte: UInt8, _ bit: Int) -> Bool {
        byte & (1 << bit) != 0
    }

    /// The bytes not read yet, all of them; the reader is then at its end.
    public mutating func rest() -> [UInt8] {
        defer { bytes = [] }
        return Array(bytes)
    }
}
