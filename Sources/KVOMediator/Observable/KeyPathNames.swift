/// Names of key paths as people write them (`"address.city"`), from what the library resolved itself:
/// the `@Observed` properties a key path read, in order, by their field names and typed key paths. No
/// name comes from parsing `String(describing:)` of a key path, which is a debug format.

/// One read of a registration, for naming: the property's name and the typed key path that read it.
typealias NamedRead = (name: String, wrapped: AnyKeyPath?)

/// The dotted names of the `@Observed` properties `keyPath` follows, when it is exactly a chain of
/// them (`\Person.address?.city` → `address.city`); nil for anything else (a computed property, a
/// subscript, a chain that is broken by a nil link right now).
func chainName(of keyPath: AnyKeyPath, reads: [NamedRead]) -> String? {
    guard !reads.isEmpty, reads.allSatisfy({ !$0.name.isEmpty && $0.wrapped != nil }) else { return nil }
    let links = reads.map { $0.wrapped! }
    let name = reads.map(\.name).joined(separator: ".")
    // One link: the very property read (a computed property that reads one property is not it).
    if links.count == 1, links[0] == keyPath { return name }
    // Otherwise by types (appended key paths do not compare equal to the literal chain): each link
    // starts where the previous one ends (through optionals, or at a superclass of it), and the key
    // path's value is the last link's, made optional by optional links.
    let root = type(of: keyPath).rootType
    guard isType(root, orSubclassOf: type(of: links[0]).rootType) else { return nil }
    var throughOptional = false
    for (link, next) in zip(links, links.dropFirst()) {
        let value = type(of: link).valueType
        throughOptional = throughOptional || value is any OptionalType.Type
        guard isType(unwrapped(value), orSubclassOf: type(of: next).rootType) else { return nil }
    }
    // (One link of the same root and type that is not the key path: a computed property reading it.)
    guard links.count > 1 || throughOptional || root != type(of: links[0]).rootType else { return nil }
    let last = type(of: links[links.count - 1]).valueType
    let expected = throughOptional && !(last is any OptionalType.Type) ? optional(of: last) : last
    guard type(of: keyPath).valueType == expected else { return nil }
    // And by the key path's own components: a computed property that reads the same links (and may
    // transform the leaf's value) has its own.
    return KeyPathComponents.isChain(keyPath, of: links) ? name : nil
}

/// `Optional<T>`, for a type known only at run time.
private func optional(of type: Any.Type) -> Any.Type {
    func wrap<T>(_: T.Type) -> Any.Type { T?.self }
    return _openExistential(type, do: wrap)
}

/// Reads, named by their fields (a read of custom storage has no name).
func namedReads(_ reads: [Access]) -> [NamedRead] {
    reads.compactMap { access in
        if access.slot == .lifetime { return nil }
        guard case .field(let offset) = access.slot, let objectType = access.objectType else {
            return (name: "", wrapped: access.wrapped)
        }
        return (name: ObservedFields.name(at: offset, in: objectType) ?? "", wrapped: access.wrapped)
    }
}

/// The name of a key path that is not a chain, from what it reads.
func computedName(reading reads: [NamedRead]) -> String {
    let names = reads.map(\.name).filter { !$0.isEmpty }
    return names.isEmpty ? "<computed>" : "<computed from \(names.joined(separator: ", "))>"
}

/// The dotted property names a typed key path follows on `object` (found by evaluating it once): nil
/// when it is not a chain of `@Observed` properties, or a link is nil now.
func namePath<Object: KeyValueObservable>(of keyPath: PartialKeyPath<Object>, on object: Object) -> String? {
    chainName(of: keyPath, reads: namedReads(ReadProbe.reads(of: keyPath, on: object)))
}
