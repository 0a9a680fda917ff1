/// The dotted property names a typed key path follows, when it is a plain chain of `@Observed`
/// properties (`\Person.address.city` → `address.city`); nil for anything else (computed properties,
/// subscripts, plain stored properties).
///
/// The printed key path gives the number of components (wrapper properties print as `<computed …>`);
/// the names come from the slots the registration read, in order. The two must agree.
func namePath(of keyPath: AnyKeyPath, dependencies: [(name: String, wrapped: AnyKeyPath?)]) -> String? {
    // Exactly the chain of the properties read: their own key paths, appended, equal the key path
    // (this also holds where the printed form differs, as for properties of generic classes).
    if let first = dependencies.first?.wrapped {
        var chain: AnyKeyPath? = first
        for dependency in dependencies.dropFirst() {
            chain = dependency.wrapped.flatMap { chain?.appending(path: $0) }
        }
        if chain == keyPath { return dependencies.map(\.name).joined(separator: ".") }
    }
    let printed = String(describing: keyPath)
    let prefix = "\\" + String(describing: type(of: keyPath).rootType) + "."
    guard printed.hasPrefix(prefix) else { return nil }
    var components: [String] = []
    var current = ""
    var depth = 0
    for character in printed.dropFirst(prefix.count) {
        switch character {
        case "<": depth += 1
        case ">": depth -= 1
        case "." where depth == 0:
            components.append(current)
            current = ""
            continue
        default: break
        }
        current.append(character)
    }
    components.append(current)
    guard components.count == dependencies.count else { return nil }
    // Each component must be the very property read (not a computed property reading it): the slot's
    // own key path prints the same component. Optional chaining adds `?` or `!` after it.
    for (component, dependency) in zip(components, dependencies) {
        guard let slot = dependency.wrapped, component.hasPrefix("<computed") else { return nil }
        let slotPrinted = String(describing: slot)
        let slotPrefix = "\\" + String(describing: type(of: slot).rootType) + "."
        let slotComponent = slotPrinted.hasPrefix(slotPrefix) ? String(slotPrinted.dropFirst(slotPrefix.count)) : ""
        guard component == slotComponent || component.dropLast() == slotComponent else { return nil }
    }
    return dependencies.map(\.name).joined(separator: ".")
}

extension KVOInfo {
    /// The dotted property names this registration follows (its string key path, or its typed key
    /// path's when that is a plain chain); what lets the string and typed forms meet.
    var namePath: String? {
        stringKeyPath ?? KVOMediator.namePath(of: keyPath, dependencies: dependencySlots())
    }
}

/// The dotted property names a typed key path follows on `object` (found by evaluating it once).
func namePath<Object: KeyValueObservable>(of keyPath: PartialKeyPath<Object>, on object: Object) -> String? {
    let dependencies = AccessTracker.probe(keyPath, on: object).map { access in
        guard case .field(let offset) = access.slot, let objectType = access.objectType else {
            return (name: "", wrapped: access.wrapped)
        }
        return (name: ObservedFields.name(at: offset, in: objectType) ?? "", wrapped: access.wrapped)
    }
    return namePath(of: keyPath, dependencies: dependencies)
}
