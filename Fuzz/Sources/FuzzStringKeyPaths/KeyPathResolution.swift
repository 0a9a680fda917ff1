/// Where a string key path leads in the world right now, by `PropertySpec`'s tables: the fuzz target's
/// expectation, written from the documented rules, of what `validateKeyPath` accepts.
enum KeyPathResolution {
    /// A valid path. `owner` holds its last property (nil past a nil link); `nilLink` is the first nil
    /// link on the way (its owner and property), to fill so that the last property can be reached.
    case accepted(owner: AnyObject?, last: PropertySpec, nilLink: (owner: AnyObject, spec: PropertySpec)?)
    /// An invalid path: the library must throw, naming `typeName`, the type where resolution stopped.
    case rejected(typeName: String)

    /// Resolves `path` from `root`, as the library documents it: each component names an `@Observed`
    /// property of the type the previous one declares; where the declared class lacks the name, the
    /// value at hand (a subclass) decides; past a nil link only declared types are checked.
    init(_ path: String, from root: Company) {
        let names = path.split(separator: ".", omittingEmptySubsequences: false)
        guard !path.isEmpty, !names.contains(where: \.isEmpty) else {
            self = .rejected(typeName: "Company")
            return
        }
        var declared: AnyObject.Type = Company.self
        var current: AnyObject? = root
        var nilLink: (owner: AnyObject, spec: PropertySpec)?
        for (index, name) in names.enumerated() {
            var spec = PropertySpec.named(name, in: declared)
            if spec == nil, let current, type(of: current) != declared,
                let own = PropertySpec.named(name, in: type(of: current))
            {
                (spec, declared) = (own, type(of: current))
            }
            guard let spec else {
                self = .rejected(typeName: String(describing: declared))
                return
            }
            if index == names.count - 1 {
                self = .accepted(owner: current, last: spec, nilLink: nilLink)
                return
            }
            guard case .link(let target) = spec.declared else {
                self = .rejected(typeName: String(describing: declared))
                return
            }
            let next = current.flatMap { spec.read($0) }.map { $0 as AnyObject }
            if next == nil, nilLink == nil, let current { nilLink = (current, spec) }
            (declared, current) = (target, next)
        }
        fatalError("unreachable: a non-empty path has a last component")
    }
}

/// Whether two values read from the world are the same: the same object, or equal descriptions.
func sameValue(_ lhs: Any?, _ rhs: Any?) -> Bool {
    switch (flattened(lhs), flattened(rhs)) {
    case (nil, nil): return true
    case (let lhs?, let rhs?):
        if type(of: lhs) is AnyClass || type(of: rhs) is AnyClass { return (lhs as AnyObject) === (rhs as AnyObject) }
        return String(describing: lhs) == String(describing: rhs)
    default: return false
    }
}

/// `value` without the optionals around it: an `Any` holding `nil` is nil.
func flattened(_ value: Any?) -> Any? {
    guard let value else { return nil }
    if let optional = value as? any OptionalProtocol { return flattened(optional.wrappedAny) }
    return value
}

/// Lets an `Any` that holds an optional be unwrapped.
protocol OptionalProtocol {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalProtocol {
    var wrappedAny: Any? { self.map { $0 } }
}
