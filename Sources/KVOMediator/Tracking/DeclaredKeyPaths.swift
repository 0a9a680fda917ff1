/// What classes declare affecting a key path (``KeyValueObservable/keyPathsAffectingValue(for:)``), kept
/// per key path object and class: the answer depends only on the class and the key path (as Cocoa takes
/// `keyPathsForValuesAffectingValueForKey:`'s), so an evaluation of a key path that declares something
/// need not run the class's function, and make its array, at each change; and where each declared key
/// path is one `@Observed` property of the class, its storage, so that an evaluation reports the read
/// its getter would report without running the getter through the key path (see
/// ``DirectSlotCache/isCacheable(_:on:declares:)`` for when a key path is known to be one property).
/// An accelerator only: a miss, or caches off (``CacheSwitch``), asks the class and reads the getters.
enum DeclaredKeyPaths {
    /// The answer of one class.
    struct Answer {
        let type: ObjectIdentifier
        let declared: [AnyKeyPath]
        /// For each declared key path, the storage offset of the `@Observed` property it is, if it is one.
        let fields: [Int?]
    }

    private static let table = KeyPathTable<Answer>(capacity: 256)

    /// What `object`'s class declares affecting `keyPath`, each with the storage of the property it is, if known.
    static func declared<Object: KeyValueObservable>(
        affecting keyPath: AnyKeyPath,
        on object: Object
    ) -> (declared: [AnyKeyPath], fields: [Int?]) {
        let type = Swift.type(of: object)
        let id = ObjectIdentifier(type)
        if let answer = table.payload(of: keyPath), answer.type == id { return (answer.declared, answer.fields) }
        let declared = type.keyPathsAffectingValue(for: keyPath)
        guard CacheSwitch.cachesAreOn else { return (declared, Array(repeating: nil, count: declared.count)) }
        let fields = declared.map { field(of: $0, on: object) }
        table.update(keyPath) { $0 = Answer(type: id, declared: declared, fields: fields) }
        return (declared, fields)
    }

    /// The storage of the `@Observed` property of `object`'s class that `keyPath` is, when one evaluation
    /// shows it is one (as ``DirectSlotCache`` records a registration's).
    private static func field<Object: KeyValueObservable>(of keyPath: AnyKeyPath, on object: Object) -> Int? {
        guard let partial = keyPath as? PartialKeyPath<Object> else { return nil }
        let reads = ReadProbe.reads(of: partial, on: object)
        guard reads.count == 1, reads[0].registrar === object.kvoRegistrar, case .field(let field) = reads[0].slot,
            sameKeyPath(reads[0].wrapped, keyPath),
            DirectSlotCache.isCacheable(
                keyPath,
                on: object,
                declares: !Swift.type(of: object).keyPathsAffectingValue(for: keyPath).isEmpty
            )
        else { return nil }
        return field
    }
}
