/// The kinds of set an owner makes, timed apart: they cost very different amounts.
enum SetKind: Int, CaseIterable, CustomStringConvertible {
    /// `@Observed` `\.value` of a long-lived cell: direct registrations only.
    case cell
    /// `\.value` of a racing link, announced by hand (`willChangeValue` / `didChangeValue`).
    case racingCell
    /// `@Observed` `\.value` of a chain's leaf: the last link of the chain registrations.
    case chainLeaf
    /// `\.value` of a racing chain's leaf, announced by hand.
    case racingChainLeaf
    /// A chain's middle link replaced or detached (both kinds of chain): the chain registrations read
    /// their chains again and subscribe to the new links; the old links die in the set.
    case middleLink
    /// `@Observed` `\.value` of a transient cell.
    case transientCell

    var description: String {
        switch self {
        case .cell: "cell"
        case .racingCell: "racing cell"
        case .chainLeaf: "chain leaf"
        case .racingChainLeaf: "racing chain leaf"
        case .middleLink: "middle link"
        case .transientCell: "transient cell"
        }
    }
}

/// One thread's sets, counted and sampled by kind (see `LatencySampler`).
struct SetTimings {
    private(set) var samplers = SetKind.allCases.map { _ in LatencySampler() }

    var sets: Int {
        samplers.reduce(0) { $0 + $1.sets }
    }

    /// Makes one set of the given kind, timing it if it is its kind's sampled one.
    @inline(__always)
    mutating func time(_ kind: SetKind, _ set: () -> Void) {
        samplers[kind.rawValue].time(set)
    }
}
