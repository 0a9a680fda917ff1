/// Whether a typed key path is a chain of `@Observed` properties when it reads certain properties (a
/// shape: a hash of the identities of the key paths that read them, which a subclass's override
/// reading other storage changes), per key path object: learnt by the first registration that
/// evaluates it (from the types of its links and the key path's own components: see
/// `KVOInfo.readsChain(_:)`), then reused, so that later registrations of the same literal
/// do not work it out again. Kept in a ``KeyPathTable``.
final class ChainShapeCache: Sendable {
    static let shared = ChainShapeCache()

    private struct Known {
        var shape: UInt = 0
        var isChain = false
        /// The property a chain evaluation of the key path read last (its wrapped key path's identity):
        /// a chain's last component is one property, so once two differ (an override in a subclass
        /// reads other storage for it) the key path is never taken for a chain again.
        var leafProperty: ObjectIdentifier?
        var conflicted = false
    }

    private let table = KeyPathTable<Known>(capacity: 256)

    /// The shape of a sequence of reads (see above).
    static func shape(of accesses: [Access]) -> UInt {
        var shape = UInt(accesses.count)
        // (By index: a read passed to a closure is copied, retaining its references.)
        for index in accesses.indices {
            let id = accesses[index].wrapped.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? 0
            shape = (shape ^ id) &* goldenRatioMultiplier
        }
        return shape
    }

    /// Whether `keyPath` is a chain when its reads have `shape` and end at `leafProperty`, if known.
    func isChain(_ keyPath: AnyKeyPath, shape: UInt, leafProperty: ObjectIdentifier?) -> Bool? {
        guard let known = table.payload(of: keyPath) else { return nil }
        if known.conflicted || (known.leafProperty != nil && known.leafProperty != leafProperty) { return false }
        return known.shape == shape ? known.isChain : nil
    }

    /// Records what an evaluation found, and returns what the key path is for this shape from now on:
    /// a chain ending at another property than an earlier chain evaluation's makes the key path no
    /// chain for good (while it stays cached).
    ///
    /// The answer is taken under the same lock as the record: the table keeps one shape per key path,
    /// so reading it back afterwards could find another thread's evaluation of another shape of the
    /// same literal (a broken chain, say) recorded meanwhile, or another key path in its place.
    func record(_ isChain: Bool, of keyPath: AnyKeyPath, shape: UInt, leafProperty: ObjectIdentifier?) -> Bool {
        var answer = false
        table.update(keyPath) { payload in
            var known = payload ?? Known()
            known.shape = shape
            known.isChain = isChain && !known.conflicted
            if isChain {
                if let earlier = known.leafProperty, earlier != leafProperty {
                    known.conflicted = true
                    known.isChain = false
                } else {
                    known.leafProperty = leafProperty
                }
            }
            payload = known
            answer = known.isChain
        }
        return answer
    }
}
