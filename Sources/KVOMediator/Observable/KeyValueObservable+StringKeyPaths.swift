extension KeyValueObservable {
    /// The value at a string key path of `@Observed` property names, as Cocoa's `value(forKeyPath:)`.
    ///
    /// ```swift
    /// person[kvoKeyPath: "address.city"]   // Optional("Paris")
    /// ```
    ///
    /// Each component is read from the `@Observed` property of that name, by its storage (Swift cannot
    /// call a getter by name), or, where the class names a key path for it (``keyPath(forKey:)``: for a
    /// subclass's override, a computed property, declared dependencies), through that key path, as the
    /// typed form reads it. Each read is reported to an observation being set up, so
    /// `\.[kvoKeyPath: "address.city"]` is observable like the typed `\.address.city`. It reads exactly the properties its components name, as the typed key path
    /// would: no other property of any object is read. The value is nil when a component is nil,
    /// unknown, or not an observable object; ``validateKeyPath(_:)`` tells which, and
    /// ``value(atKeyPath:)`` reads with an unknown name an error. ``setValue(_:atKeyPath:)-(Any?,_)`` sets.
    public subscript(kvoKeyPath path: String) -> Any? {
        var current: AnyObject = self
        let names = path.split(separator: ".", omittingEmptySubsequences: false)
        for (index, name) in names.enumerated() {
            guard let observable = current as? any KeyValueObservable,
                let value = StringComponent.find(String(name), in: type(of: observable))?.reportedValue(in: observable)
            else { return nil }
            if index == names.count - 1 { return value }
            current = value as AnyObject
        }
        return nil
    }

    /// The value at a string key path, as `self[kvoKeyPath:]` gives it, read as one of the library's own
    /// reads: reported neither to an observation being set up nor to Swift's Observation.
    func unreportedValue(atKeyPath path: String) -> Any? {
        var current: AnyObject = self
        let names = path.split(separator: ".", omittingEmptySubsequences: false)
        for (index, name) in names.enumerated() {
            guard let value = StringComponent.find(String(name), in: type(of: current))?.value(in: current) else {
                return nil
            }
            if index == names.count - 1 { return value }
            guard type(of: value) is AnyObject.Type else { return nil }
            current = value as AnyObject
        }
        return nil
    }

    /// Checks a string key path against the declared types of this object's `@Observed` properties,
    /// component by component, past nil links too.
    ///
    /// Each component must name an `@Observed` property of the type the previous one declares (after
    /// optionals): `"address.cty"` is reported while `address` is nil, with `Address`'s property names.
    /// Where a declared type cannot tell (a value declared as `Any` or as a protocol, say, or a property
    /// that only a subclass of the declared class has), the value at hand decides. Past a nil value
    /// declared as `Any`, `AnyObject` or a protocol nothing more can be checked; past a nil value declared
    /// as a class, the next name must be one of that class's properties. Only the properties the path
    /// names are read.
    ///
    /// - Throws: ``KVOError`` with reason `.malformedKeyPath` for an empty path or an empty component,
    ///   `.unknownKey` for a name that is not an `@Observed` property (the message lists the valid ones)
    ///   or a component that is not a ``KeyValueObservable`` object but has more components after it.
    public func validateKeyPath(_ path: String) throws(KVOError) {
        let rootName = String(describing: type(of: self))
        let names = path.split(separator: ".", omittingEmptySubsequences: false)
        guard !path.isEmpty, !names.contains(where: \.isEmpty) else {
            throw KVOError(
                reason: .malformedKeyPath,
                keyPath: path,
                typeName: rootName,
                message: "KVOMediator: \"\(path.prefix(200))\" is not a valid key path of \(rootName): it must be "
                    + "@Observed property names separated by single dots, like \"address.city\"."
            )
        }
        var currentType: AnyObject.Type = type(of: self)
        // The object at this point of the path, while no link so far was nil.
        var current: AnyObject? = self
        for (index, name) in names.enumerated() {
            var found = StringComponent.find(String(name), in: currentType)
            if found == nil, let current, type(of: current) != currentType,
                let own = StringComponent.find(String(name), in: type(of: current))
            {
                (found, currentType) = (own, type(of: current))
            }
            guard let found else { throw KVOError.unknownKey(name, in: currentType, path: path, root: rootName) }
            if case .named(let named) = found, !isType(currentType, orSubclassOf: type(of: named).rootType) {
                throw KVOError.misnamedKeyPath(name, named: named, in: currentType, path: path, root: rootName)
            }
            if index == names.count - 1 { return }
            let declared = unwrapped(found.declaredType)
            let value = current.flatMap(found.value(in:))
            if let observableType = declared as? any KeyValueObservable.Type {
                currentType = observableType
                current = value.map { $0 as AnyObject }
                continue
            }
            // Declared as something that is not a KeyValueObservable class: the value decides.
            if let value, let observable = value as? any KeyValueObservable {
                currentType = type(of: observable)
                current = observable
                continue
            }
            // (Past a nil value of a protocol type, `any Named` say, nothing more can be checked: a value of it
            // may be of any class that conforms.)
            if value == nil, SwiftRuntime.isExistential(declared) { return }
            throw KVOError(
                reason: .unknownKey(String(names[index + 1])),
                keyPath: path,
                typeName: rootName,
                message: "KVOMediator: \"\(name)\" of \(currentType) is a \(declared), not a KeyValueObservable "
                    + "object, so the key path \"\(path.prefix(200))\" of \(rootName) cannot continue past it."
            )
        }
    }
}

extension KVOError {
    /// A class names, for a string key path's component, a key path that does not start at it.
    static func misnamedKeyPath(
        _ name: Substring,
        named keyPath: AnyKeyPath,
        in type: AnyObject.Type,
        path: String,
        root: String
    ) -> KVOError {
        let keyPathRoot = String(describing: Swift.type(of: keyPath).rootType)
        return KVOError(
            reason: .unknownKey(String(name)),
            keyPath: path,
            typeName: root,
            message: "KVOMediator: \(type).keyPath(forKey: \"\(name.prefix(200))\") names a key path of "
                + "\(keyPathRoot), not of \(type) (in key path \"\(path.prefix(200))\" of \(root)). Return a key path that starts at "
                + "\(type) or a class it inherits from, such as \\\(type).\(name.prefix(200)), or nil."
        )
    }

    /// A string key path names a property `type` does not have (observable): lists the ones it has. The
    /// error's `typeName` is `root`, where the path starts; its message names `type`, where the lookup failed.
    static func unknownKey(_ name: Substring, in type: AnyObject.Type, path: String, root: String) -> KVOError {
        let typeName = String(describing: type)
        let valid = ObservedFields.names(in: type).joined(separator: ", ")
        return KVOError(
            reason: .unknownKey(String(name)),
            keyPath: path,
            typeName: root,
            message: "KVOMediator: \(typeName) has no observable property \"\(name.prefix(200))\" "
                + "(in key path \"\(path.prefix(200))\" of \(root)). Its observable properties are: "
                + (valid.isEmpty ? "none" : valid)
                + ". A string key path names an @Observed property or a key path the class returns from keyPath(forKey:)."
        )
    }
}

/// One component of a string key path on a class: the key path the class names for it
/// (``KeyValueObservable/keyPath(forKey:)``), or else the `@Observed` property of that name.
enum StringComponent {
    case named(AnyKeyPath)
    case field(ObservedField)

    /// The component `name` of objects of `type`, if it names one.
    static func find(_ name: String, in type: AnyObject.Type) -> StringComponent? {
        if let observable = type as? any KeyValueObservable.Type { return find(name, in: observable) }
        return ObservedFields.field(named: name, in: type).map(StringComponent.field)
    }

    /// The component `name` of objects of `type` (a class known to be observable: no cast to find it out).
    static func find(_ name: String, in type: any KeyValueObservable.Type) -> StringComponent? {
        if let keyPath = type.keyPath(forKey: name) { return .named(keyPath) }
        return ObservedFields.field(named: name, in: type).map(StringComponent.field)
    }

    /// The type the component is declared as (its key path's value type, or its property's).
    var declaredType: Any.Type {
        switch self {
        case .named(let keyPath): type(of: keyPath).valueType
        case .field(let field): field.storage.valueType
        }
    }

    /// The value in `object`, out of its optionals (nil if it is nil), read as one of the library's own
    /// reads: not reported to an observation being set up or to Swift's Observation.
    func value(in object: AnyObject) -> Any? {
        switch self {
        case .named(let keyPath):
            untracked { (object as? any KeyValueObservable)?[keyPath: keyPath] }.flatMap(flattened)
        case .field(let field): flattened(field.value(in: object))
        }
    }

    /// The value in `object`, out of its optionals (nil if it is nil), its read reported to an observation
    /// being set up as a typed key path's would be: a named key path's as its own read (what it declares
    /// included, and its manual will/did) before its getter reports what it reads; an `@Observed`
    /// property's by its storage.
    func reportedValue(in object: some KeyValueObservable) -> Any? {
        switch self {
        case .named(let keyPath):
            if KVORegistrar._isTracking { object.kvoRegistrar.access(customStorage: keyPath, of: object) }
            return object[keyPath: keyPath].flatMap(flattened)
        case .field(let field):
            object.kvoRegistrar.access(field: field.offset, of: object)
            if field.storage.isWeak, KVORegistrar._isTracking { ReadRecorder.noteWeakLinkRead() }
            return flattened(field.value(in: object))
        }
    }
}
