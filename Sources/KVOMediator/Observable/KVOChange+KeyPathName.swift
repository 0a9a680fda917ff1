// How a record names its key path: what the registration resolved, else what the key path's root type
// declares (``KeyValueObservable/keyPathName(for:)``). Beside the observable side, whose names these
// are, rather than with ``KVOChange`` itself (the value layer names no observable type).

extension _KeyPathHolder {
    /// The key path as people write it: the holder's own name (a registration's), else the one the root
    /// type declares, else the key path's description.
    var keyPathName: String {
        if let ownName { return ownName }
        if let root = type(of: keyPath).rootType as? any KeyValueObservable.Type,
            let name = root.keyPathName(for: keyPath)
        {
            return name
        }
        return String(describing: keyPath)
    }
}

extension KVOChange {
    /// The observed key path as people write it: `"address.city"` for `\.address?.city`, the string
    /// itself for a string key path (`"address.city"`), and for a computed property the name its type
    /// gives in ``KeyValueObservable/keyPathName(for:)`` (Swift cannot name a computed property at run
    /// time; without that, `"<computed from firstName, lastName>"`: what it reads).
    ///
    /// ```swift
    /// switch change.keyPathName {
    /// case "address.city": refreshCity()
    /// case "fullName": refreshTitle()
    /// default: break
    /// }
    /// ```
    ///
    /// It is resolved when read, from the registration; a chain broken by a nil link keeps the name it
    /// had when whole.
    public var keyPathName: String {
        _keyPathHolder.unsafelyUnwrapped.keyPathName
    }
}

extension KVOChange: CustomStringConvertible {
    public var description: String {
        var parts = ["keyPath: \(keyPathName)", "kind: \(kind)"]
        if let oldValue { parts.append("old: \(oldValue)") }
        if let newValue { parts.append("new: \(newValue)") }
        if let indexes { parts.append("indexes: \(Array(indexes))") }
        if isPrior { parts.append("prior") }
        return "KVOChange(" + parts.joined(separator: ", ") + ")"
    }
}
