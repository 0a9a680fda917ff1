import Foundation

/// A collection mutation's record in parts, handed to a box's function (see `_Delivery`), which builds
/// the `KVOChange` where its value type is concrete: built by the registration, in generic code, it
/// looked up the metadata of `KVOChange<Value>` and `Value?` on every mutation.
@usableFromInline
struct _CollectionParts {
    @usableFromInline let kind: KVOChangeKind
    @usableFromInline let indexes: _KVOIndexes
    /// The removed and the inserted elements, each a collection of `type` (nil when not given).
    @usableFromInline var old: ValueAddress?
    @usableFromInline var new: ValueAddress?
    @usableFromInline let type: Any.Type

    @inlinable
    init(kind: KVOChangeKind, indexes: _KVOIndexes, old: ValueAddress?, new: ValueAddress?, type: Any.Type) {
        self.kind = kind
        self.indexes = indexes
        self.old = old
        self.new = new
        self.type = type
    }

    /// The same parts without the removed elements (`old` false) or the inserted ones (`new` false).
    func keeping(old keepsOld: Bool, new keepsNew: Bool) -> _CollectionParts {
        _CollectionParts(kind: kind, indexes: indexes, old: keepsOld ? old : nil, new: keepsNew ? new : nil, type: type)
    }

    /// Calls `body` with the address of these parts without the removed elements (`old` false) or the
    /// inserted ones (`new` false): these parts themselves, so changed for the call and restored after it
    /// (a copy, as `keeping` makes, retains the indexes and releases them again).
    @inline(__always)
    mutating func withKept(old keepsOld: Bool, new keepsNew: Bool, _ body: (ValueAddress) -> Void) {
        let (old, new) = (self.old, self.new)
        if !keepsOld { self.old = nil }
        if !keepsNew { self.new = nil }
        _withUnprotectedUnsafePointer(to: &self) { body(ValueAddress($0)) }
        (self.old, self.new) = (old, new)
    }
}

extension _CollectionParts {
    /// Calls `body` with the addresses of `removed` and `inserted` (nil for none): taken where their type
    /// is concrete (a proxy's inlined mutation), so that no generic code handles the optionals.
    @inlinable
    static func withAddresses<Collection>(
        of removed: Collection?,
        _ inserted: Collection?,
        _ body: (ValueAddress?, ValueAddress?) -> Void
    ) {
        func withInserted(_ removedAddress: ValueAddress?) {
            guard let inserted else { return body(removedAddress, nil) }
            _withValuePointer(to: inserted) { body(removedAddress, ValueAddress($0)) }
        }
        guard let removed else { return withInserted(nil) }
        _withValuePointer(to: removed) { withInserted(ValueAddress($0)) }
    }
}
