/// How a set of one `@Observed` slot reaches a registration that depends on it, cheapest first: chosen
/// for each set from what the registration knows then (``choose(isDirect:leaf:set:readerKind:)``, a pure
/// function of it). A strategy that cannot finish falls back: a chain's link to a full evaluation (a link
/// missing, an object of another class), a computed property's expected reads to recording them.
enum ChangeStrategy: Equatable {
    /// The registration's own property: the setter's old and new values are the record
    /// (`KVOInfo+Direct`).
    case direct
    /// The leaf of its typed chain, whose links did not change: the setter's values are the record too,
    /// while the chain still reaches the leaf's holder (`KVOInfo+Direct`).
    case chainLeaf
    /// A link of its typed chain: the old chain's tail is followed from the old value, the new one's
    /// from the new value, its subscriptions moved over, and the leaf read once (`TypedKVOInfo+Links`).
    case chainLink
    /// What its last evaluation read was no chain (a computed property): it is read again, expecting
    /// the same reads, and nothing is re-subscribed while they are (`TypedKVOInfo+Reevaluation`, which
    /// asks the leaf word the same question itself, as it is also reached with no set: a manual or a
    /// collection change, a registration of several on the slot).
    case computed
    /// Anything else (a link or the leaf of a string or partial key path, whose value need not be the
    /// setter's; a key path whose reads are not known yet): read again, its reads recorded and its
    /// dependencies brought to them.
    case full

    /// Whether the record is made from the setter's own values, with nothing read again.
    @inline(__always)
    var takesSetterValues: Bool {
        switch self {
        case .direct, .chainLeaf: true
        case .chainLink, .computed, .full: false
        }
    }
}

extension ChangeStrategy {
    /// The strategy for a set of the slot `set` (``LeafWord/slot(_:field:)``, or ``LeafWord/none`` for one
    /// that has no key) of a registration that is `isDirect`, whose leaf word is `leaf` and which reads
    /// its key path as `readerKind`.
    @inline(__always)
    static func choose(isDirect: Bool, leaf: LeafWord, set: LeafWord, readerKind: SlotObserver.ReaderKind) -> Self {
        if isDirect { return .direct }
        // (Only a typed key path's value is the setter's as it is. A string key path's is flattened out of
        // its optionals; a partial key path's is boxed as the chain's optional, `[Int]?` for
        // `\.a?.b?.items`, where the setter's is the leaf's own `[Int]`. Delivered from the setter, its
        // value would change type with what was set, and `.distinct` would compare the two types.)
        if !set.isNone, leaf == set { return readerKind == .typed ? .chainLeaf : .full }
        if leaf.isNoChain { return .computed }
        return leaf.isSlot && readerKind == .typed ? .chainLink : .full
    }
}
