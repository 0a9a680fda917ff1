/// The owner's account of one chain: the sequence number its leaf holds and how many times its value
/// changed, through the leaf or through the middle link.
struct ChainProgress {
    /// The last sequence number written to the chain.
    private(set) var sequence = 0
    /// Every change of the chain's value: each set of the leaf and each replacement or detachment of
    /// the middle link.
    private(set) var events = 0
    /// Whether the middle link is set; while it is not, the chain's value is nil.
    private(set) var isAttached = true

    var state: TargetState {
        TargetState(value: isAttached ? sequence : nil, sequence: sequence, events: events)
    }

    /// Numbers a set of the leaf; nil while detached (there is no leaf to set).
    mutating func advance() -> Int? {
        guard isAttached else { return nil }
        sequence += 1
        events += 1
        return sequence
    }

    /// Numbers a replacement of the middle link, whose new leaf holds the returned sequence number.
    mutating func replaceMiddle() -> Int {
        isAttached = true
        sequence += 1
        events += 1
        return sequence
    }

    /// Counts a detachment of the middle link; false if it was detached already.
    mutating func detach() -> Bool {
        guard isAttached else { return false }
        isAttached = false
        events += 1
        return true
    }
}
