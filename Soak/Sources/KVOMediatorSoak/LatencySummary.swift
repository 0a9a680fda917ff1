/// The distribution of set latencies over all threads: the samples merged, each weighted by the
/// number of sets it stands for.
struct LatencySummary {
    let median: UInt64
    let percentile99: UInt64
    let longest: UInt64
    let sampleCount: Int

    init(_ samplers: [LatencySampler]) {
        var weighted: [(nanoseconds: UInt32, weight: Int)] = []
        weighted.reserveCapacity(samplers.reduce(0) { $0 + $1.samples.count })
        for sampler in samplers {
            for sample in sampler.samples { weighted.append((sample, sampler.stride)) }
        }
        weighted.sort { $0.nanoseconds < $1.nanoseconds }
        let total = weighted.reduce(0) { $0 + $1.weight }
        func percentile(_ fraction: Double) -> UInt64 {
            let threshold = Double(total) * fraction
            var cumulative = 0
            for sample in weighted {
                cumulative += sample.weight
                if Double(cumulative) >= threshold { return UInt64(sample.nanoseconds) }
            }
            return weighted.last.map { UInt64($0.nanoseconds) } ?? 0
        }
        median = percentile(0.5)
        percentile99 = percentile(0.99)
        longest = samplers.map(\.longest).max() ?? 0
        sampleCount = weighted.count
    }
}
