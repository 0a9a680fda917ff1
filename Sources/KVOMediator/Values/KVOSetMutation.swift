/// How a set is about to change, for announcing it by hand: Cocoa's `NSKeyValueSetMutationKind`.
///
/// Pass it to ``KeyValueObservable/willChange(_:using:for:)`` and
/// ``KeyValueObservable/didChange(_:using:for:)`` around a change of a set with custom storage or of an
/// `@Observed(automaticallyNotifies: false)` set. Observers of the set get the record the set proxy
/// (``KeyValueObservable/mutableSetValue(for:)``) gives for the same mutation, computed from the set's
/// value before the change and the objects passed:
///
/// | Mutation | Swift | Record |
/// |---|---|---|
/// | `.union` | `formUnion(objects)` | `.insertion`, `newValue`: the objects not yet in the set |
/// | `.minus` | `subtract(objects)` | `.removal`, `oldValue`: the objects that were in it |
/// | `.intersect` | `formIntersection(objects)` | `.removal`, `oldValue`: the members not among the objects |
/// | `.set` | `= objects` | `.replacement`, `oldValue`: the members not among the objects, `newValue`: the objects not yet in it |
///
/// A mutation that changes nothing (a union of members already there, say) is announced to nobody.
///
/// ```swift
/// photo.withChange(.union, using: ["jazz"], of: \.tags) { tagStorage.formUnion(["jazz"]) }
/// ```
public enum KVOSetMutation: Sendable, Hashable {
    /// The objects are added: Cocoa's `NSKeyValueUnionSetMutation`.
    case union
    /// The objects are removed: Cocoa's `NSKeyValueMinusSetMutation`.
    case minus
    /// Only the members that are also among the objects are kept: Cocoa's `NSKeyValueIntersectSetMutation`.
    case intersect
    /// The set becomes the objects: Cocoa's `NSKeyValueSetSetMutation`.
    case set
}

extension KVOSetMutation {
    /// What `set` becomes when the mutation is applied with `objects`, as removed and added members.
    func changes<Element: Hashable>(
        of set: Set<Element>,
        using objects: Set<Element>
    ) -> (removed: Set<Element>, added: Set<Element>) {
        switch self {
        case .union: ([], objects.subtracting(set))
        case .minus: (set.intersection(objects), [])
        case .intersect: (set.subtracting(objects), [])
        case .set: (set.subtracting(objects), objects.subtracting(set))
        }
    }

    /// The kind of the records that announce the mutation.
    var changeKind: KVOChangeKind {
        switch self {
        case .union: .insertion
        case .minus, .intersect: .removal
        case .set: .replacement
        }
    }
}
