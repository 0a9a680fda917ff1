/// The errors of setting and reading by string key path (``KeyValueObservable/setValue(_:atKeyPath:)-(Any?,_)``,
/// ``KeyValueObservable/value(atKeyPath:as:)``): each names the key path, the type it starts from, the
/// types involved, and the fix.
extension KVOError {
    /// A set by string key path whose value is not of the property's declared type.
    static func typeMismatch(
        setting value: Any?,
        path: String,
        root: AnyObject.Type,
        holder: AnyObject.Type,
        name: some StringProtocol,
        declared: Any.Type
    ) -> KVOError {
        let expected = String(describing: declared)
        let actual = value.map { String(describing: type(of: $0)) } ?? "nil"
        let property = "\(holder).\(name)"
        let fix =
            value == nil
            ? "It is not optional: pass a value of type \(expected), or declare it as \(expected)? to allow nil."
            : "Pass a value of type \(expected): values are not converted, as in Swift (an Int is not a Double: "
                + "convert it first, as \(expected)(value)), or set the property in Swift, where the compiler checks "
                + "its type."
        return KVOError(
            reason: .typeMismatch(expected: expected, actual: actual),
            keyPath: path,
            typeName: String(describing: root),
            message: "KVOMediator: cannot set \"\(path.prefix(200))\" of \(root) to "
                + (value == nil ? "nil" : "a value of type \(actual)")
                + ": \(property) is declared as \(expected). " + fix
        )
    }

    /// A set by string key path of a property whose key path, named by its class
    /// (``KeyValueObservable/keyPath(forKey:)``), is not writable.
    static func readOnly(
        _ name: some StringProtocol,
        path: String,
        root: AnyObject.Type,
        holder: AnyObject.Type
    ) -> KVOError {
        KVOError(
            reason: .unknownKey(String(name)),
            keyPath: path,
            typeName: String(describing: root),
            message: "KVOMediator: cannot set \"\(path.prefix(200))\" of \(root): \(holder).keyPath(forKey: "
                + "\"\(name.prefix(200))\") names a read-only key path. Name a ReferenceWritableKeyPath there (a "
                + "property with a setter), or set the property it is computed from."
        )
    }

    /// A set by string key path that cannot reach its property: the link `link` (the path up to it) is nil.
    static func nilLink(
        _ link: some StringProtocol,
        path: String,
        root: AnyObject.Type,
        linkType: Any.Type
    ) -> KVOError {
        let last = path.split(separator: ".").last.map(String.init) ?? path
        return KVOError(
            reason: .nilLink(String(link)),
            keyPath: path,
            typeName: String(describing: root),
            message: "KVOMediator: cannot set \"\(path.prefix(200))\" of \(root): \"\(link.prefix(200))\" is nil, so "
                + "there is no \(unwrapped(linkType)) whose \(last.prefix(200)) could be set. Set \"\(link.prefix(200))\" "
                + "first, or write `try?` to skip the set while it is nil (what Cocoa's setValue(_:forKeyPath:) "
                + "does silently)."
        )
    }

    /// A typed read by string key path whose value is not of the type asked for.
    static func typeMismatch(reading value: Any, as expected: Any.Type, path: String, root: AnyObject.Type) -> KVOError
    {
        let actual = String(describing: type(of: value))
        return KVOError(
            reason: .typeMismatch(expected: String(describing: expected), actual: actual),
            keyPath: path,
            typeName: String(describing: root),
            message: "KVOMediator: the value at \"\(path.prefix(200))\" of \(root) is of type \(actual), not "
                + "\(expected). Ask for \(actual) (value(atKeyPath: \"\(path.prefix(200))\", as: \(actual).self)), or read "
                + "the property in Swift, where the compiler checks its type."
        )
    }

    /// A string key path observed as a type its value is not of.
    static func typeMismatch(
        observing value: Any,
        as expected: Any.Type,
        path: String,
        root: AnyObject.Type
    ) -> KVOError {
        let actual = String(describing: type(of: value))
        return KVOError(
            reason: .typeMismatch(expected: String(describing: expected), actual: actual),
            keyPath: path,
            typeName: String(describing: root),
            message: "KVOMediator: the value at \"\(path.prefix(200))\" of \(root) is of type \(actual), not "
                + "\(expected), so records would hold nil for it. Observe it as \(actual): observe(_:keyPath: "
                + "\"\(path.prefix(200))\", as: \(actual).self), or observe the typed key path, whose type the "
                + "compiler checks."
        )
    }
}
