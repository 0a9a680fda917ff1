/// An immutable reference to a key path: what ``KVOChange`` stores. Registrations are holders too.
@usableFromInline
class _KeyPathHolder: @unchecked Sendable {  // immutable
    @usableFromInline
    final let keyPath: AnyKeyPath

    @usableFromInline
    init(_ keyPath: AnyKeyPath) {
        self.keyPath = keyPath
    }

    /// The key path as people write it (a registration resolves it from what it read).
    var keyPathName: String {
        if let root = type(of: keyPath).rootType as? any KeyValueObservable.Type,
            let name = root.keyPathName(for: keyPath)
        {
            return name
        }
        return String(describing: keyPath)
    }
}

/// Whether two values, looked through their optionals, are the same: equal, or the same object.
/// Values that cannot be compared count as the same.
func haveSameValue(_ lhs: Any, _ rhs: Any) -> Bool {
    let (lhs, rhs) = (flattened(lhs), flattened(rhs))
    guard let lhs, let rhs else { return (lhs == nil) == (rhs == nil) }
    if type(of: lhs) is AnyClass, type(of: rhs) is AnyClass { return (lhs as AnyObject) === (rhs as AnyObject) }
    guard let equatable = lhs as? any Equatable else { return true }
    return equatable.isEqual(to: rhs)
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool {
        (other as? Self).map { $0 == self } ?? false
    }
}
