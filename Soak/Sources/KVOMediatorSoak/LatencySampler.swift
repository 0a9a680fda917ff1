import Foundation

/// Counts one thread's sets and times a sample of them, every `stride`-th, with the monotonic clock,
/// into a buffer allocated up front (so that sampling never allocates while the soak runs).
///
/// When the buffer fills, every other sample is dropped and the stride doubles, so the samples stay
/// spread over the whole run; each stands for `stride` sets when threads' samples are merged.
struct LatencySampler {
    private static let capacity = 1 << 15
    /// The samples, in nanoseconds.
    private(set) var samples: [UInt32] = []
    /// How many sets each sample stands for; a power of two.
    private(set) var stride = 64
    private(set) var sets = 0
    /// The longest sampled set, in nanoseconds (kept when its sample is dropped).
    private(set) var longest: UInt64 = 0

    init() {
        samples.reserveCapacity(Self.capacity)
    }

    /// Makes one set, timing it if it is the `stride`-th.
    @inline(__always)
    mutating func time(_ set: () -> Void) {
        sets &+= 1
        guard sets & (stride - 1) == 0 else { return set() }
        let begin = monotonicNanoseconds()
        set()
        record(monotonicNanoseconds() &- begin)
    }

    private mutating func record(_ nanoseconds: UInt64) {
        longest = max(longest, nanoseconds)
        if samples.count == Self.capacity {
            for index in 0..<Self.capacity / 2 { samples[index] = samples[2 * index + 1] }
            samples.removeLast(Self.capacity / 2)
            stride *= 2
        }
        samples.append(UInt32(clamping: nanoseconds))
    }
}

/// Nanoseconds of `CLOCK_MONOTONIC`, which never jumps.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
