/// What a registration is observing: one of the properties a group's owner writes.
enum Target: Sendable, Equatable, CustomStringConvertible {
    /// `\.value` of one of the group's long-lived cells.
    case cell(Int)
    /// `\.middle?.leaf?.value` of the group's root: a chain whose middle link is replaced now and then.
    case chain
    /// `\.value` of the group's transient cell of one generation, replaced (and released) now and then.
    case transient(generation: Int)
    /// `\.value` of the group's racing cell, observed while its owner sets it.
    case racingCell
    /// `\.next?.next?.value` of the group's racing root, observed while its owner sets the chain.
    case racingChain

    var description: String {
        switch self {
        case .cell(let index): "cell \(index) \\.value"
        case .chain: "chain \\.middle?.leaf?.value"
        case .transient(let generation): "transient cell (generation \(generation)) \\.value"
        case .racingCell: "racing cell \\.value"
        case .racingChain: "racing chain \\.next?.next?.value"
        }
    }
}

/// What a thread may ask to observe; the transient cell is resolved to its current generation.
enum TargetChoice: CaseIterable {
    case firstCell, secondCell, chain, transient, racingCell, racingChain

    /// Whether its objects can be read without `turns`, so that registering can race the owner's sets.
    var canRace: Bool {
        self == .racingCell || self == .racingChain
    }
}

/// A target's state, read under its group's `turns`: where a registration made then starts, or how
/// far one ended then must have got.
struct TargetState: Sendable, Equatable {
    /// The value the key path reads (nil: a chain whose middle link is detached).
    var value: Int?
    /// The last sequence number written to the target.
    var sequence: Int
    /// How many changes of the key path's value there have been (for a chain, link changes too).
    var events: Int
}
