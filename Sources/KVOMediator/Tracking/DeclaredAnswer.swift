/// What a class declares affecting a key path (``KeyValueObservable/keyPathsAffectingValue(for:)``), with,
/// for each declared key path that is one `@Observed` property of the class, that property's storage:
/// an evaluation then reports the read the property's getter would report without running the getter
/// through the key path (see ``DirectSlotCache/isCacheable(_:on:declares:)`` for when a key path is known
/// to be one property). The answer depends only on the class and the key path (as Cocoa takes
/// `keyPathsForValuesAffectingValueForKey:`'s), so a tracker keeps the last few it found
/// (`AccessTracker.declaredAnswer(affecting:of:)`), per thread and with no lock, and an evaluation of a
/// key path that declares something need not run the class's function, and make its array, at each
/// change. An accelerator only: with caches off (``CacheSwitch``) nothing is kept, and each evaluation
/// asks the class and reads the getters.
final class DeclaredAnswer {  // immutable; a class so that handing it out is one retain, not one per array
    /// The key path asked about, held so that its identity is not reused while the answer is kept.
    let keyPath: AnyKeyPath
    let type: ObjectIdentifier
    let declared: [AnyKeyPath]
    /// For each declared key path, the storage offset of the `@Observed` property it is, if it is one.
    let fields: [Int?]

    /// What `object`'s class declares affecting `keyPath`, each with the storage of the property it is,
    /// if known (with caches off, none is: each is read through its getter).
    init<Object: KeyValueObservable>(affecting keyPath: AnyKeyPath, on object: Object) {
        self.keyPath = keyPath
        type = ObjectIdentifier(Swift.type(of: object))
        declared = Swift.type(of: object).keyPathsAffectingValue(for: keyPath)
        fields =
            CacheSwitch.cachesAreOn
            ? declared.map { Self.field(of: $0, on: object) } : Array(repeating: nil, count: declared.count)
    }

    /// Whether this is the answer for `keyPath` (this very object) on objects of the class `type`.
    func answers(_ keyPath: AnyKeyPath, type: ObjectIdentifier) -> Bool {
        self.keyPath === keyPath && self.type == type
    }

    /// The storage of the `@Observed` property of `object`'s class that `keyPath` is, when one evaluation
    /// shows it is one (as ``DirectSlotCache`` records a registration's).
    private static func field<Object: KeyValueObservable>(of keyPath: AnyKeyPath, on object: Object) -> Int? {
        guard let partial = keyPath as? PartialKeyPath<Object> else { return nil }
        let reads = ReadProbe.reads(of: partial, on: object)
        guard let field = reads.onlyField(of: object.kvoRegistrar, readThrough: keyPath),
            DirectSlotCache.isCacheable(
                keyPath,
                on: object,
                declares: !Swift.type(of: object).keyPathsAffectingValue(for: keyPath).isEmpty
            )
        else { return nil }
        return field
    }
}

/// A declared key path one evaluation has read (`AccessTracker.readDeclared(affecting:of:)`) that is not one
/// `@Observed` property: each is read once, so that declarations that form a cycle end. (A property's
/// read ends its cycle itself: a repeat reads no declarations.) Known by its object and the key path.
struct DeclaredRead {
    let object: ObjectIdentifier
    let keyPath: AnyKeyPath

    init(object: ObjectIdentifier, _ keyPath: AnyKeyPath) {
        self.object = object
        self.keyPath = keyPath
    }

    /// Whether this is the read of `keyPath` (or one equal to it) of `object`.
    func isRead(of object: ObjectIdentifier, keyPath: AnyKeyPath) -> Bool {
        self.object == object && sameKeyPath(self.keyPath, keyPath)
    }
}
