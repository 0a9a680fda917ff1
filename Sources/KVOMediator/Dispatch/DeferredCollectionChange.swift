import Foundation

/// A collection mutation deferred by a transaction (`TransactionChanges`), its elements boxed. (A class:
/// its entry's extra holds one word for it.)
final class DeferredCollectionChange {
    let kind: KVOChangeKind
    let indexes: IndexSet?
    /// The removed and the inserted elements, each a collection of `type`.
    let old: Any?
    let new: Any?
    let type: Any.Type

    /// The change that `parts` gives by address, its elements boxed.
    init(_ parts: _CollectionParts) {
        kind = parts.kind
        indexes = parts.indexes.indexSet
        old = parts.old.map { $0.loadBoxed(as: parts.type) }
        new = parts.new.map { $0.loadBoxed(as: parts.type) }
        type = parts.type
    }

    /// Calls `body` with the change in parts, the elements by address.
    func withParts(_ body: (_CollectionParts) -> Void) {
        func withNew(_ oldAddress: ValueAddress?) {
            guard let new else { return body(parts(oldAddress, nil)) }
            func open<Elements>(_ elements: Elements) {
                _withValuePointer(to: elements) { body(parts(oldAddress, ValueAddress($0))) }
            }
            _openExistential(new, do: open)
        }
        guard let old else { return withNew(nil) }
        func open<Elements>(_ elements: Elements) {
            _withValuePointer(to: elements) { withNew(ValueAddress($0)) }
        }
        _openExistential(old, do: open)
    }

    private func parts(_ old: ValueAddress?, _ new: ValueAddress?) -> _CollectionParts {
        _CollectionParts(kind: kind, indexes: _KVOIndexes(indexes), old: old, new: new, type: type)
    }
}
