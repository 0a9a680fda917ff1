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
