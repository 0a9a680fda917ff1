@_spi(Reflection) import Swift

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

/// An `@Observed` property of a class: its name and the byte offset of its storage in an instance.
struct ObservedField {
    let name: String
    let offset: Int
}

/// The `@Observed` properties of classes, by class, read once from the runtime's field metadata.
///
/// A setter names its property by the offset of its storage (a constant once compiled); string key
/// paths name it by property name: this table joins the two.
enum ObservedFields {
    private static let lock = Lock()
    nonisolated(unsafe) private static var table: [ObjectIdentifier: [ObservedField]] = [:]  // guarded by `lock`

    /// The `@Observed` fields of `type`, its superclasses' included, in declaration order (base first).
    static func of(_ type: AnyObject.Type) -> [ObservedField] {
        let key = ObjectIdentifier(type)
        if let fields = lock.withLock({ table[key] }) { return fields }
        var fields: [ObservedField] = []
        // Class fields must be asked for explicitly (`_EachFieldOptions.classType`).
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1)) { name, offset, fieldType, _ in
            let label = String(cString: name)
            if label.hasPrefix("_"), fieldType is any ObservedStorage.Type {
                fields.append(ObservedField(name: String(label.dropFirst()), offset: offset))
            }
            return true
        }
        lock.withLock { table[key] = fields }
        return fields
    }

    /// The offset of the `@Observed` property called `name` (a subclass's wins over a base class's).
    static func offset(of name: some StringProtocol, in type: AnyObject.Type) -> Int? {
        of(type).last { $0.name == name }?.offset
    }

    /// The name of the `@Observed` property whose storage is at `offset`.
    static func name(at offset: Int, in type: AnyObject.Type) -> String? {
        of(type).first { $0.offset == offset }?.name
    }
}
