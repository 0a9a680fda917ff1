@_spi(Reflection) import Swift
import Synchronization

/// What string key paths need of an `@Observed` property, from its type alone: the type of its value,
/// a read of that one property at its storage's address (no other property is read or copied), and a
/// set of it as its setter would (`Observed+SetByName`).
protocol ObservedStorage {
    /// The wrapped value's declared type.
    static var valueType: Any.Type { get }
    /// Whether it holds its value weakly (`ObservedWeak`).
    static var isWeak: Bool { get }
    /// The value of the `Observed` storage at `address`, boxed.
    static func value(at address: FieldAddress) -> Any
    /// Sets the `Observed` storage at byte offset `field` of `object` to `value`, announcing it as the
    /// property's setter does; false, with nothing set, when `value` is not of the declared type.
    /// `registrarOffset`: where `object`'s class stores its `kvoRegistrar`, if it does (see
    /// `ObservedLayout`).
    static func set(
        _ value: Any?,
        field: Int,
        of object: some KeyValueObservable,
        registrarAt registrarOffset: Int?
    )
        -> Bool
    /// `set(_:field:of:registrarAt:)` of a value of a static type
    /// (``KeyValueObservable/setValue(_:atKeyPath:)-(Value,_)``), with the meaning of that value passed as
    /// `Any?` (`SetArgument`).
    static func set<Given>(
        given value: Given,
        field: Int,
        of object: some KeyValueObservable,
        registrarAt registrarOffset: Int?
    ) -> Bool
}

extension ObservedStorage {
    static func set<Given>(
        given value: Given,
        field: Int,
        of object: some KeyValueObservable,
        registrarAt registrarOffset: Int?
    ) -> Bool {
        set(SetArgument.asOptionalAny(value), field: field, of: object, registrarAt: registrarOffset)
    }
}

/// A storage that holds its value itself, as its first field: `Observed` (an `ObservedWeak` holds a
/// reference to its referent's link instead). What a chain's links are followed through
/// (`TypedKVOInfo+Links`).
protocol InlineObservedStorage: ObservedStorage {
    /// `Optional<valueType>`: what a key path through an optional link gives for this property.
    static var optionalValueType: Any.Type { get }
    /// The value of the storage at `address` as an optional, of type `Result`, which is
    /// `optionalValueType` (for a chain through optional links).
    static func valueAsOptional<Result>(at address: FieldAddress, as type: Result.Type) -> Result
}

extension Observed: ObservedStorage {
    static var valueType: Any.Type { Value.self }
    static var isWeak: Bool { false }

    static func value(at address: FieldAddress) -> Any {
        address.pointer(to: Self.self).pointee.value
    }
}

extension Observed: InlineObservedStorage {
    static var optionalValueType: Any.Type { Value?.self }

    static func valueAsOptional<Result>(at address: FieldAddress, as type: Result.Type) -> Result {
        reinterpret(Optional(address.pointer(to: Self.self).pointee.value), as: Result.self)
    }
}

/// What the library asks of an `Optional` it knows only at run time: to look through any level of it, in
/// a value (`wrappedAny`) or in a type (`wrappedType`); for a set by name (`SetArgument`), one level of it
/// (`unwrappedOnce`) and its own nil (`none(as:)`).
protocol OptionalType {
    var wrappedAny: Any? { get }
    /// `value`, an optional of this type boxed as `Any`, unwrapped one level: nil for nil. (Opened, not
    /// cast: a cast of a boxed optional looks through its levels.)
    static func wrappedOnce(of value: Any) -> Any?
    static var wrappedType: Any.Type { get }
    /// `value` (a `Self`) unwrapped one level, as `Any?`.
    static func unwrappedOnce<Given>(_ value: Given) -> Any?
    /// This optional type's nil, as a `Result` (which is `Self`).
    static func none<Result>(as _: Result.Type) -> Result
}

extension Optional: OptionalType {
    var wrappedAny: Any? {
        switch self {
        case .some(let wrapped): return (wrapped as? any OptionalType).map(\.wrappedAny) ?? wrapped
        case .none: return nil
        }
    }

    static var wrappedType: Any.Type { Wrapped.self }

    static func wrappedOnce(of value: Any) -> Any? {
        func open<Given>(_ value: Given) -> Any? { unwrappedOnce(value) }
        return _openExistential(value, do: open)
    }

    static func unwrappedOnce<Given>(_ value: Given) -> Any? {
        // (`reinterpret`, not `as Any`: a `Wrapped` that is itself `Any` would be boxed in another `Any`.)
        reinterpret(value, as: Self.self).map { reinterpret($0, as: Any.self) }
    }

    static func none<Result>(as _: Result.Type) -> Result {
        reinterpret(Self.none, as: Result.self)
    }
}

/// `value` with every level of optional removed; nil if any level is nil.
func flattened(_ value: Any) -> Any? {
    if let optional = value as? any OptionalType { return optional.wrappedAny }
    return value
}

/// Whether `type` is an `Optional` (a check of its metadata, where a cast looks up conformances).
func isOptionalType(_ type: Any.Type) -> Bool {
    func check<T>(_: T.Type) -> Bool { _isOptional(T.self) }
    return _openExistential(type, do: check)
}

/// `type` with every level of `Optional` removed.
func unwrapped(_ type: Any.Type) -> Any.Type {
    var current = type
    while let optional = current as? any OptionalType.Type { current = optional.wrappedType }
    return current
}

/// An `@Observed` property of a class: its name, the byte offset of its storage in an instance, and
/// the storage's type.
struct ObservedField: @unchecked Sendable {  // immutable: a metatype is not `Sendable` in Swift 6, but never changes
    let name: String
    let offset: Int
    let storage: any ObservedStorage.Type

    /// The property's value in `object` (an instance of the class this field was found in): reads
    /// that one property, as its getter would, and nothing else. The caller keeps `object` alive.
    func value(in object: AnyObject) -> Any {
        storage.value(at: FieldAddress(of: object, at: offset))
    }
}

/// What the runtime's field metadata says of a class: its `@Observed` properties, and where its
/// registrar is stored. (A class: made once per class and kept for the process's lifetime, as the
/// runtime keeps class metadata, so that `ObservedFields.layout(of:)` can hand it out unretained.)
final class ObservedLayout: Sendable {
    /// The `@Observed` fields, its superclasses' included, in declaration order (base first).
    let fields: [ObservedField]
    /// The byte offset of the stored `kvoRegistrar` (nil if the class stores none under that name).
    let registrarOffset: Int?
    /// What a chain reads of each field, in `fields`' order: plain values, so that a search copies no
    /// name and retains nothing (`TypedKVOInfo+Links` searches on each change).
    let links: [Link]

    /// A field as a chain's link or leaf (worked out once: each fact is a call through the storage's type).
    struct Link: @unchecked Sendable {  // immutable: a metatype is not `Sendable` in Swift 6, but never changes
        let offset: Int
        /// The storage, if it holds its value inline (nil for an `ObservedWeak`).
        let inline: (any InlineObservedStorage.Type)?
        /// Whether the storage holds an object (or an optional one) inline: its value is, at the storage's
        /// address, the object's address or 0.
        let holdsObject: Bool
        /// The value's type and its `Optional`, for a storage that holds its value inline (nil otherwise).
        let valueType: Any.Type?
        let optionalValueType: Any.Type?

        init(_ field: ObservedField) {
            offset = field.offset
            inline = field.storage as? any InlineObservedStorage.Type
            let valueType = inline?.valueType
            self.valueType = valueType
            optionalValueType = inline?.optionalValueType
            // A class, or one level of Optional of one (two levels have two representations of nil).
            holdsObject =
                valueType.map { type in
                    type is AnyObject.Type || (type as? any OptionalType.Type)?.wrappedType is AnyObject.Type
                } ?? false
        }
    }

    init(fields: [ObservedField], registrarOffset: Int?) {
        (self.fields, self.registrarOffset) = (fields, registrarOffset)
        links = fields.map(Link.init)
    }

    /// The field at byte offset `offset`, as a chain's link or leaf.
    func link(atField offset: Int) -> Link? {
        links.first { $0.offset == offset }
    }
}

/// The `@Observed` properties of classes, by class, read once from the runtime's field metadata.
///
/// A setter names its property by the offset of its storage (a constant once compiled); string key
/// paths name it by property name: this table joins the two. Nothing here reads an instance.
enum ObservedFields {
    private static let table = LockProtected([ObjectIdentifier: ObservedLayout]())

    /// The `@Observed` fields of `type`, its superclasses' included, in declaration order (base first).
    static func of(_ type: AnyObject.Type) -> [ObservedField] {
        layout(of: type).fields
    }

    /// Layouts by class, lock-free, for the paths that look one up on each change (`TypedKVOInfo+Links`).
    private static let recent = LayoutCache()

    /// The `@Observed` fields of `type` and where it stores its registrar.
    static func layout(of type: AnyObject.Type) -> ObservedLayout {
        if let layout = recent.layout(of: type) { return layout }
        let layout = lockedLayout(of: type)
        recent.insert(layout, for: type)
        return layout
    }

    private static func lockedLayout(of type: AnyObject.Type) -> ObservedLayout {
        let key = ObjectIdentifier(type)
        if let layout = table.withLock({ $0[key] }) { return layout }
        var fields: [ObservedField] = []
        var registrarOffset: Int?
        // Class fields must be asked for explicitly (`_EachFieldOptions.classType`).
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1)) { name, offset, fieldType, _ in
            let label = String(cString: name)
            if label.hasPrefix("_"), let storage = fieldType as? any ObservedStorage.Type {
                fields.append(ObservedField(name: String(label.dropFirst()), offset: offset, storage: storage))
            } else if label == "kvoRegistrar", fieldType == KVORegistrar.self {
                registrarOffset = offset
            }
            return true
        }
        let layout = ObservedLayout(fields: fields, registrarOffset: registrarOffset)
        table.withLock { $0[key] = layout }
        return layout
    }

    /// The `@Observed` property called `name` (a subclass's wins over a base class's).
    static func field(named name: String, in type: AnyObject.Type) -> ObservedField? {
        withField(named: name, in: type) { offset, storage, _ in
            ObservedField(name: name, offset: offset, storage: storage)
        }
    }

    /// `body` of the storage offset and type of the `@Observed` property called `name` (as
    /// `field(named:in:)` finds it), read where the class's layout holds them (no copy of the field's
    /// name); nil if there is none.
    static func withField<Result>(
        named name: String,
        in type: AnyObject.Type,
        _ body: (_ offset: Int, _ storage: any ObservedStorage.Type, _ registrarOffset: Int?) -> Result
    ) -> Result? {
        withLayout(of: type) { layout in
            // (Indexes into the class's own array, where `last(where:)` retained and released it.)
            var index = layout.fields.endIndex
            while index > layout.fields.startIndex {
                index -= 1
                if layout.fields[index].name == name {
                    return body(layout.fields[index].offset, layout.fields[index].storage, layout.registrarOffset)
                }
            }
            return nil
        }
    }

    /// Calls `body` with the layout of `type`, not retained when the cache has it (a cached layout is
    /// held for good): for the paths that look one up on each change.
    static func withLayout<Result>(of type: AnyObject.Type, _ body: (ObservedLayout) -> Result) -> Result {
        if let bits = recent.bits(of: type) { return OnceSlots.withObject(bits, as: ObservedLayout.self, body) }
        return body(layout(of: type))
    }

    /// The name of the `@Observed` property whose storage is at `offset`.
    static func name(at offset: Int, in type: AnyObject.Type) -> String? {
        withLayout(of: type) { layout in layout.fields.first { $0.offset == offset }?.name }
    }

    /// Whether an `@Observed` property is stored at `offset` (as `name(at:in:) != nil`, with no name copied).
    static func holdsProperty(at offset: Int, in type: AnyObject.Type) -> Bool {
        withLayout(of: type) { layout in layout.links.contains { $0.offset == offset } }
    }

    /// Whether the `@Observed` property stored at `offset` holds a value of type `value` inline (an
    /// `Observed<value>`, whose value is the first field of its storage: see `InlineObservedStorage`).
    static func holdsInline(_ value: Any.Type, at offset: Int, in type: AnyObject.Type) -> Bool {
        withLayout(of: type) { layout in
            layout.links.contains { $0.offset == offset && $0.inline != nil && $0.valueType == value }
        }
    }

    /// The names of the `@Observed` properties of `type`, sorted, for error messages.
    static func names(in type: AnyObject.Type) -> [String] {
        Array(Set(of(type).map(\.name))).sorted()
    }
}

/// A lock-free cache of class layouts (`OnceSlots`, keyed by the class's metadata address): a layout
/// stored there is held for good, as `ObservedFields` holds it too. A full table misses, and the caller
/// takes the lock; so does every lookup with caches off (``CacheSwitch``).
private final class LayoutCache: Sendable {
    private let slots = OnceSlots(count: 64)
    private let isOn = CacheSwitch.cachesAreOn

    private static func home(of key: UInt) -> Int {
        Int(truncatingIfNeeded: (key >> 4) ^ (key >> 10))
    }

    func layout(of type: AnyObject.Type) -> ObservedLayout? {
        bits(of: type).map { OnceSlots.withObject($0, as: ObservedLayout.self) { $0 } }
    }

    /// The address of the layout of `type`, if cached.
    func bits(of type: AnyObject.Type) -> UInt? {
        guard isOn else { return nil }
        let key = UInt(bitPattern: ObjectIdentifier(type))
        let bits = slots.find(key, from: Self.home(of: key))
        return bits != 0 ? bits : nil
    }

    func insert(_ layout: ObservedLayout, for type: AnyObject.Type) {
        guard isOn else { return }
        let key = UInt(bitPattern: ObjectIdentifier(type))
        slots.insert(layout, under: key, from: Self.home(of: key))
    }
}
