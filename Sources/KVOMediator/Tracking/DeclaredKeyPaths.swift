/// What classes declare affecting a key path (``KeyValueObservable/keyPathsAffectingValue(for:)``), kept
/// per key path object and class: the answer depends only on the class and the key path (as Cocoa takes
/// `keyPathsForValuesAffectingValueForKey:`'s), so an evaluation of a key path that declares something
/// need not run the class's function, and make its array, at each change. An accelerator only: a miss,
/// or caches off (``CacheSwitch``), asks the class.
enum DeclaredKeyPaths {
    /// The answer of one class.
    struct Answer {
        let type: ObjectIdentifier
        let declared: [AnyKeyPath]
    }

    private static let table = KeyPathTable<Answer>(capacity: 256)

    /// What objects of `type` declare affecting `keyPath`.
    static func declared(affecting keyPath: AnyKeyPath, in type: any KeyValueObservable.Type) -> [AnyKeyPath] {
        let id = ObjectIdentifier(type)
        if let answer = table.payload(of: keyPath), answer.type == id { return answer.declared }
        let declared = type.keyPathsAffectingValue(for: keyPath)
        table.update(keyPath) { $0 = Answer(type: id, declared: declared) }
        return declared
    }
}
