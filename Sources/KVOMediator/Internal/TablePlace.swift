/// Fibonacci hashing's multiplier: 2^64 divided by the golden ratio.
let goldenRatioMultiplier: UInt = 0x9E37_79B9_7F4A_7C15

/// Where `bits` (an object's address, a field's offset) goes in a table of `mask + 1` places, a power
/// of two: the top bits of a multiplicative hash (Fibonacci hashing), the ones that every bit of the
/// key reaches. (Bits 32 and up, taken before, left 1,001 field offsets 2.6 probes apart on average and
/// the last one 6; the top bits, 1.3 and 1.) No `Hasher`: the tables that use it sit on registration
/// and notification paths.
@inline(__always)
func tablePlace(of bits: UInt, mask: Int) -> Int {
    // (`mask` is 2^k - 1, so its leading zeros are 64 - k: a `bsr`, where a population count has no
    // instruction in the baseline x86-64 this builds for.)
    Int(truncatingIfNeeded: (bits &* goldenRatioMultiplier) >> UInt(mask.leadingZeroBitCount))
}

/// In a linear-probing table, whether the entry at `next`, whose probe starts at `home`, may move back
/// into the emptied place `hole` (a removal's backward shift): not when `home` lies cyclically in
/// `(hole, next]`, where its probe would then never reach it.
@inline(__always)
func mayFill(_ hole: Int, from next: Int, home: Int) -> Bool {
    !(hole <= next ? (hole < home && home <= next) : (hole < home || home <= next))
}
