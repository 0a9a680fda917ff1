extension KeyValueObservable {
    /// Sets the `@Observed` property at a string key path, as Cocoa's `setValue(_:forKeyPath:)`, checking
    /// the names and the value's type at run time.
    ///
    /// ```swift
    /// try person.setValue("Paris", atKeyPath: "address.city")   // person.address.city = "Paris"
    /// try person.setValue(nil, atKeyPath: "secondHome")         // an optional property takes nil
    /// try person.setValue(3, atKeyPath: "address.city")         // throws: city is declared as String
    /// ```
    ///
    /// Each component but the last names an `@Observed` property holding the ``KeyValueObservable``
    /// object the next one is read from; the last names the property to set, on that object. A set
    /// announces exactly what `person.address.city = "Paris"` announces: the same records, with the
    /// same old and new values and prior records, to every registration of the property (typed, string,
    /// chain, token, stream), synchronously on this thread. A property declared
    /// `@Observed(automaticallyNotifies: false)` is set without announcing, as by its own setter; its
    /// owner announces it. Sets are as thread-safe as typed sets: different properties and different
    /// objects may be set from different threads; one property is set from one thread at a time.
    ///
    /// The value must be of the property's declared type, as Swift's `as?` decides: `nil` sets an
    /// optional property only, a subclass instance sets a property of its base class's type, and no
    /// number converts to another type (an `Int` does not set a `Double` property).
    ///
    /// A nil link on the way (`"secondHome.city"` while `secondHome` is nil) throws, where Cocoa's
    /// `setValue(_:forKeyPath:)` silently does nothing: a set that was asked for and did not happen is
    /// worth knowing about. Write `try?` to do as Cocoa does.
    ///
    /// > Important: Like Cocoa's KVC, this sets any `@Observed` property, including one with a
    /// > `private(set)` setter. It writes the property's storage as `@Observed`'s setter does, so a
    /// > `willSet`/`didSet` observer on the property, or on a subclass's `override`, does not run.
    ///
    /// > Tip: Prefer a typed set (`person.address.city = "Paris"`) where the key path is known when
    /// > compiling: the compiler checks it. This is for key paths that arrive as strings. (A set by name
    /// > is not reported to Swift's Observation on a class that bridges to it: see
    /// > <doc:UsingKVOMediatorWithObservationAndSwiftUI>.)
    ///
    /// - Parameters:
    ///   - value: The new value, of the property's declared type (`nil` for an optional property).
    ///   - path: `@Observed` property names separated by dots, like `"address.city"`.
    /// - Throws: ``KVOError``, and nothing is set, with reason `.malformedKeyPath` for an empty path or
    ///   component; `.unknownKey` for a name that is not an `@Observed` property (the message lists the
    ///   valid ones) or a link that is not a ``KeyValueObservable`` object, also past a nil link, as
    ///   ``validateKeyPath(_:)`` checks; `.nilLink` for a nil link (naming it and the type it is declared
    ///   as); `.typeMismatch` for a value not of the property's type (naming the expected type).
    public func setValue(_ value: Any?, atKeyPath path: String) throws(KVOError) {
        try setValue(given: value, atKeyPath: path)
    }

    /// Sets the `@Observed` property at a string key path to a value of a static type, as
    /// ``setValue(_:atKeyPath:)-(Any?,_)`` sets the same value passed as `Any?`.
    ///
    /// ```swift
    /// try person.setValue(42, atKeyPath: "age")           // no `Any` box: stored as it is
    /// let nickname: String? = nil
    /// try person.setValue(nickname, atKeyPath: "nickname")  // an optional: nil, as `Any?` would be
    /// ```
    ///
    /// Swift picks this form for an argument of a static type other than `Any?` (in generic code too:
    /// a `T` that is `String?` is an optional here, unwrapped as below). A value of exactly the property's
    /// declared type is stored as it is, without a box or a cast, as the typed set
    /// (`person.age = 42`) stores it; any other is taken as the `Any?` form takes it (an optional as its
    /// wrapped value or nil), with the same checks, records and errors. The two forms differ only where
    /// boxing in `Any?` loses what a value is: a property declared as an optional existential, such as
    /// `(any Hashable)?`, given a value that holds a nil optional is set to that value here, and to nil
    /// by the `Any?` form, whose cast looks through the box.
    ///
    /// - Parameters:
    ///   - value: The new value, of the property's declared type.
    ///   - path: `@Observed` property names separated by dots, like `"address.city"`.
    /// - Throws: ``KVOError``, and nothing is set, as ``setValue(_:atKeyPath:)-(Any?,_)`` throws.
    public func setValue<Value>(_ value: Value, atKeyPath path: String) throws(KVOError) {
        try setValue(given: value, atKeyPath: path)
    }

    /// Both forms of `setValue(_:atKeyPath:)`: `Given` is `Any?` for Cocoa's.
    @inline(__always)
    private func setValue<Given>(given value: Given, atKeyPath path: String) throws(KVOError) {
        // One name, the common case, is the path itself: no array of names. The name of an `@Observed`
        // property has no dot (the runtime names a raw identifier's storage `` `_a.b` ``, which `ObservedFields`
        // does not take for one), so a path found as one is one name: no scan for a dot.
        if let field = ObservedFields.withField(named: path, in: type(of: self), { FoundField($0, $1, $2) }) {
            // (A value not of the property's type sets nothing: `setLast` says why.)
            if type(of: self).keyPath(forKey: path) == nil,
                field.storage.set(given: value, field: field.offset, of: self, registrarAt: field.registrarOffset)
            {
                return
            }
            return try setLast(value, named: path, path: path, in: self, field: field)
        }
        guard hasSeparator(path) else {
            return try setLast(value, named: path, path: path, in: self)
        }
        let names = path.split(separator: ".", omittingEmptySubsequences: false)
        var holder: any KeyValueObservable = self
        for (index, name) in names.enumerated() {
            guard index < names.count - 1 else {
                return try setLast(value, named: String(name), path: path, in: holder)
            }
            guard let component = StringComponent.find(String(name), in: type(of: holder)) else {
                // An unknown or empty name: the checks of string observation say which.
                try validateKeyPath(path)
                throw KVOError.unknownKey(name, in: type(of: holder), path: path, root: rootName)
            }
            let link = component.value(in: holder)
            let linkType = component.declaredType
            guard let link else {
                // A misspelt name past the nil link is reported as such first.
                try validateKeyPath(path)
                let prefix = names[...index].joined(separator: ".")
                throw KVOError.nilLink(prefix, path: path, root: type(of: self), linkType: linkType)
            }
            guard let next = link as? any KeyValueObservable else {
                try validateKeyPath(path)
                // (The check passes only if another thread replaced the link since it was read here.)
                throw KVOError.unknownKey(names[index + 1], in: type(of: holder), path: path, root: rootName)
            }
            holder = next
        }
    }

    /// Whether `path` has more than one name (over its bytes where they lie, where iterating `utf8`
    /// decoded it index by index).
    private func hasSeparator(_ path: String) -> Bool {
        let dot = UInt8(ascii: ".")
        if let found = path.utf8.withContiguousStorageIfAvailable({ $0.contains(dot) }) { return found }
        return path.utf8.contains(dot)
    }

    /// Sets the property `name` of `holder`, the last component of `path` (see `setValue(_:atKeyPath:)`).
    /// `field` is the `@Observed` property called `name` in `holder`'s class, if the caller found it.
    private func setLast<Given>(
        _ value: Given,
        named name: String,
        path: String,
        in holder: some KeyValueObservable,
        field known: FoundField? = nil
    ) throws(KVOError) {
        let holderType = type(of: holder)
        let wasSet: Bool?
        if let keyPath = holderType.keyPath(forKey: name) {
            wasSet = (keyPath as? any WritableByName)?.set(SetArgument.asOptionalAny(value), on: holder)
            guard wasSet != nil else {
                throw KVOError.readOnly(name, path: path, root: type(of: self), holder: holderType)
            }
        } else if let known {
            wasSet = known.storage.set(
                given: value,
                field: known.offset,
                of: holder,
                registrarAt: known.registrarOffset
            )
        } else {
            // The field is used where the class's layout holds it: no copy of it to destroy.
            wasSet = ObservedFields.withField(named: name, in: holderType) { offset, storage, registrarOffset in
                storage.set(given: value, field: offset, of: holder, registrarAt: registrarOffset)
            }
            guard wasSet != nil else {
                try validateKeyPath(path)
                throw KVOError.unknownKey(Substring(name), in: holderType, path: path, root: rootName)
            }
        }
        guard wasSet == true else {
            throw KVOError.typeMismatch(
                setting: SetArgument.asOptionalAny(value),
                path: path,
                root: type(of: self),
                holder: holderType,
                name: name,
                declared: StringComponent.find(name, in: holderType)?.declaredType ?? Any.self
            )
        }
    }

    /// The value at a string key path of `@Observed` property names, as Cocoa's `value(forKeyPath:)`,
    /// with a misspelt name an error rather than a silent nil.
    ///
    /// ```swift
    /// try person.value(atKeyPath: "address.city")      // Optional("London")
    /// try person.value(atKeyPath: "secondHome.city")   // nil while secondHome is nil
    /// try person.value(atKeyPath: "adress.city")       // throws, listing Person's properties
    /// ```
    ///
    /// It reads what ``subscript(kvoKeyPath:)`` reads, and reports the reads to an observation being
    /// set up as it does. Every name is checked against the declared types, past a nil link too, as
    /// ``validateKeyPath(_:)`` checks. The value is nil when the property is nil or, as with Cocoa, when
    /// a link on the way is nil: reading is asking what is there, and nothing is. Optionals are
    /// flattened: a `String?` property holding `"a"` gives `"a"`.
    ///
    /// - Parameter path: `@Observed` property names separated by dots, like `"address.city"`.
    /// - Returns: The value, or nil when it or a link on the way is nil.
    /// - Throws: ``KVOError`` with reason `.malformedKeyPath` or `.unknownKey`, as ``validateKeyPath(_:)``.
    public func value(atKeyPath path: String) throws(KVOError) -> Any? {
        if let value = self[kvoKeyPath: path] { return value }
        try validateKeyPath(path)
        return nil
    }

    /// The value at a string key path, of the type asked for: a value of another type is an error
    /// rather than a silent nil.
    ///
    /// ```swift
    /// let city = try person.value(atKeyPath: "address.city", as: String.self)   // String?: "London"
    /// let number = try person.value(atKeyPath: "address.city", as: Int.self)    // throws: a String
    /// ```
    ///
    /// As ``value(atKeyPath:)``, then cast with `as?`. The check is of the value there: while the
    /// value (or a link on the way) is nil, the result is nil whatever type is asked for.
    ///
    /// - Parameters:
    ///   - path: `@Observed` property names separated by dots, like `"address.city"`.
    ///   - type: The type of the value, without optionals (`String.self` for a `String?` property).
    /// - Returns: The value, or nil when it or a link on the way is nil.
    /// - Throws: ``KVOError`` with reason `.malformedKeyPath` or `.unknownKey`, as ``validateKeyPath(_:)``,
    ///   or `.typeMismatch` when the value is not a `Value` (naming both types).
    public func value<Value>(atKeyPath path: String, as type: Value.Type) throws(KVOError) -> Value? {
        guard let value = try value(atKeyPath: path) else { return nil }
        guard let typed = value as? Value else {
            throw KVOError.typeMismatch(reading: value, as: Value.self, path: path, root: Swift.type(of: self))
        }
        return typed
    }

    /// The name of this object's type, for error messages.
    private var rootName: String { String(describing: type(of: self)) }
}

/// `value` as a `Value`, as a set by name takes it (Swift's `as?`): nil is a value of an optional `Value`
/// only, and the value itself is cast, not the `Any?` holding it, which `as? Any` would take as it is.
func valueForSet<Value>(_ value: Any?, as _: Value.Type) -> Value? {
    // nil is the optional's own nil, its outermost (`Int??` gets `.none`, as `x = nil` sets it), where
    // a cast of `Any?.none` to `Int??` kept the nil one level in (`.some(nil)`).
    guard let value else { return (Value.self as? any OptionalType.Type)?.none(as: Value.self) }
    return value as? Value
}

/// What a set by name of a value of a static type means: the value as it would be passed as `Any?`
/// (``KeyValueObservable/setValue(_:atKeyPath:)-(Value,_)``), so that both forms set alike.
enum SetArgument {
    /// `value` as an `Any?` argument: an optional gives its wrapped value or nil (one level, as Swift
    /// converts an `Int?` to `Any?`), any other value itself. An `Any?` is itself.
    static func asOptionalAny<Given>(_ value: Given) -> Any? {
        // (Cocoa's form first, with no conformance lookup.)
        if isOptionalAny(Given.self) { return reinterpret(value, as: Any?.self) }
        if let optional = Given.self as? any OptionalType.Type {
            return optional.unwrappedOnce(value)
        }
        return value
    }

    /// Whether `type` is `Any?`, which a set takes as the optional it is, never as a value to store as
    /// it is (a property declared `Any?` is set to the value it wraps).
    static func isOptionalAny(_ type: Any.Type) -> Bool {
        type == Any?.self
    }
}

/// A key path a string key path's component can be set through (``KeyValueObservable/keyPath(forKey:)``):
/// a `ReferenceWritableKeyPath`, whose setter announces the change as a typed set does.
protocol WritableByName {
    /// Sets the property of `root` to `value`; false, with nothing set, when `root` or `value` is not of
    /// the key path's types (as Swift's `as?` decides).
    func set(_ value: Any?, on root: AnyObject) -> Bool
}

extension ReferenceWritableKeyPath: WritableByName {
    func set(_ value: Any?, on root: AnyObject) -> Bool {
        guard let root = root as? Root, let value = valueForSet(value, as: Value.self) else { return false }
        root[keyPath: self] = value
        return true
    }
}

/// Where an `@Observed` property found by name is stored (`ObservedFields.withField(named:in:_:)`), with
/// no copy of its name.
private struct FoundField {
    let offset: Int
    let storage: any ObservedStorage.Type
    let registrarOffset: Int?

    init(_ offset: Int, _ storage: any ObservedStorage.Type, _ registrarOffset: Int?) {
        self.offset = offset
        self.storage = storage
        self.registrarOffset = registrarOffset
    }
}
