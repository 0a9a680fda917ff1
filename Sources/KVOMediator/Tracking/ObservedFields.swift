@_spi(Reflection) import Swift

/// What string key paths need of an `@Observed` property, from its type alone: the type of its value,
/// a read of that one property at its storage's address (no other property is read or copied), and a
/// set of it as its setter would (`Observed+SetByName`).
protocol ObservedStorage {
    /// The wrapped value's declared type.
    static var valueType: Any.Type { get }
    /// The value of the `Observed` storage at `address`, boxed.
    static func value(at address: UnsafeRawPointer) -> Any
    /// Sets the `Observed` storage at byte offset `field` of `object` to `value`, announcing it as the
    /// property's setter does; false, with nothing set, when `value` is not of the declared type.
    static func set(_ value: Any?, field: Int, of object: some KeyValueObservable) -> Bool
}

extension Observed: ObservedStorage {
    static var valueType: Any.Type { Value.self }

    static func value(at address: UnsafeRawPointer) -> Any {
        address.assumingMemoryBound(to: Self.self).pointee.value
    }
}

/// Looks through any level of `Optional`: in a value (`wrappedAny`) or in a type (`wrappedType`).
protocol OptionalType {
    var wrappedAny: Any? { get }
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalType {
    var wrappedAny: Any? {
        switch self {
        case .some(let wrapped): return (wrapped as? any OptionalType).map(\.wrappedAny) ?? wrapped
        case .none: return nil
        }
    }

    static var wrappedType: Any.Type { Wrapped.self }
}

/// `value` with every level of optional removed; nil if any level is nil.
func flattened(_ value: Any) -> Any? {
    if let optional = value as? any OptionalType { return optional.wrappedAny }
    return value
}

/// `type` with every level of `Optional` removed.
func unwrapped(_ type: Any.Type) -> Any.Type {
    var current = type
    while let optional = current as? any OptionalType.Type { current = optional.wrappedType }
    return current
}

/// An `@Observed` property of a class: its name, the byte offset of its storage in an instance, and
/// the storage's type.
struct ObservedField {
    let name: String
    let offset: Int
    let storage: any ObservedStorage.Type

    /// The property's value in `object` (an instance of the class this field was found in): reads
    /// that one property, as its getter would, and nothing else. The caller keeps `object` alive.
    func value(in object: AnyObject) -> Any {
        storage.value(at: UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset)
    }

    /// Sets the property in `object` (an instance of the class this field was found in) to `value` as
    /// its setter would; false, with nothing set, when `value` is not of its declared type.
    func set(_ value: Any?, in object: some KeyValueObservable) -> Bool {
        storage.set(value, field: offset, of: object)
    }
}

/// The `@Observed` properties of classes, by class, read once from the runtime's field metadata.
///
/// A setter names its property by the offset of its storage (a constant once compiled); string key
/// paths name it by property name: this table joins the two. Nothing here reads an instance.
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
            if label.hasPrefix("_"), let storage = fieldType as? any ObservedStorage.Type {
                fields.append(ObservedField(name: String(label.dropFirst()), offset: offset, storage: storage))
            }
            return true
        }
        lock.withLock { table[key] = fields }
        return fields
    }

    /// The `@Observed` property called `name` (a subclass's wins over a base class's).
    static func field(named name: some StringProtocol, in type: AnyObject.Type) -> ObservedField? {
        of(type).last { $0.name == name }
    }

    /// The name of the `@Observed` property whose storage is at `offset`.
    static func name(at offset: Int, in type: AnyObject.Type) -> String? {
        of(type).first { $0.offset == offset }?.name
    }

    /// The names of the `@Observed` properties of `type`, sorted, for error messages.
    static func names(in type: AnyObject.Type) -> [String] {
        Array(Set(of(type).map(\.name))).sorted()
    }
}
