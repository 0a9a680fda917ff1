/// Fibonacci hashing's multiplier: 2^64 divided by the golden ratio.
let goldenRatioMultiplier: UInt = 0x9E37_79B9_7F4A_7C15

/// Where `bits` (an object's address, a field's offset) goes in a table of `mask + 1` places, a power
/// of two: the high half of a multiplicative hash, so that addresses, which differ mostly in their
/// middle bits, spread. No `Hasher`: the tables that use it sit on registration and notification paths.
@inline(__always)
func tablePlace(of bits: UInt, mask: Int) -> Int {
    Int(truncatingIfNeeded: (bits &* goldenRatioMultiplier) >> 32) & mask
}

/// In a linear-probing table, whether the entry at `next`, whose probe starts at `home`, may move back
/// into the emptied place `hole` (a removal's backward shift): not when `home` lies cyclically in
/// `(hole, next]`, where its probe would then never reach it.
@inline(__always)
func mayFill(_ hole: Int, from next: Int, home: Int) -> Bool {
    !(hole <= next ? (hole < home && home <= next) : (hole < home || home <= next))
}
