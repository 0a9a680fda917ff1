/// Gives reflection access to an `@Observed` property's value without knowing its type.
protocol ObservedStorage {
    var anyValue: Any { get }
}

extension Observed: ObservedStorage {
    var anyValue: Any { value }
}

/// Looks through any level of `Optional` inside an `Any`.
protocol AnyOptional {
    var wrappedAny: Any? { get }
}

extension Optional: AnyOptional {
    var wrappedAny: Any? {
        switch self {
        case .some(let wrapped): return (wrapped as? any AnyOptional).map(\.wrappedAny) ?? wrapped
        case .none: return nil
        }
    }
}

/// `value` with every level of optional removed; nil if any level is nil.
func flattened(_ value: Any) -> Any? {
    if let optional = value as? any AnyOptional { return optional.wrappedAny }
    return value
}

/// The `@Observed` properties of an object, by name (`_name` storage → `name`), subclass first.
func observedProperties(of object: AnyObject) -> [(name: String, value: Any)] {
    var properties: [(name: String, value: Any)] = []
    var mirror: Mirror? = Mirror(reflecting: object)
    while let current = mirror {
        for child in current.children {
            guard let label = child.label, label.hasPrefix("_"), let storage = child.value as? any ObservedStorage
            else { continue }
            properties.append((String(label.dropFirst()), storage.anyValue))
        }
        mirror = current.superclassMirror
    }
    return properties
}

/// The value of the `@Observed` property called `name`, if the object has one.
func observedValue(of object: AnyObject, named name: Substring) -> Any? {
    var mirror: Mirror? = Mirror(reflecting: object)
    let label = "_" + name
    while let current = mirror {
        for child in current.children where child.label == label {
            if let storage = child.value as? any ObservedStorage { return storage.anyValue }
        }
        mirror = current.superclassMirror
    }
    return nil
}
