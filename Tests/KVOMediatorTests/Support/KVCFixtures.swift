import KVOMediator

/// Set and read by string key path (`KVCSetterTests`, `KVCReadTests`): an optional value, a number
/// that is not an `Int`, an optional link declared as a base class, and a property announced by hand.
///
/// `@unchecked Sendable` because thread tests hand it to other threads; they never write one
/// property from two threads at once.
final class Account: KeyValueObservable, @unchecked Sendable {  // one writer per property
    let kvoRegistrar = KVORegistrar()
    @Observed var email: String?
    @Observed var balance = 0.0
    @Observed var logins = 0
    @Observed var companion: Companion?
    @Observed(automaticallyNotifies: false) var revision = 0
}

/// A link declared as a base class, which a subclass instance may fill.
class Companion: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var name = "companion"
}

/// A subclass with a property of its own, reachable by name only while the link holds one.
final class GuideDog: Companion {
    @Observed var tricks = 0
}

/// A gauge whose `value` a subclass overrides: the class names `value`'s key path for string key paths
/// (`keyPath(forKey:)`), so that a string reaches the override as the typed key path does.
class NamedGauge: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var value = 0
    @Observed var reading = 5

    /// Computed and read-only: observable by name through its key path, and not settable.
    var doubled: Int { reading * 2 }

    class func keyPath(forKey key: String) -> AnyKeyPath? {
        switch key {
        case "value": \NamedGauge.value
        case "doubled": \NamedGauge.doubled
        default: nil
        }
    }
}

/// Overrides `value` with a computed property backed by `other`: `value`'s own storage stays 0.
final class OverridingGauge: NamedGauge, @unchecked Sendable {
    @Observed var other = 100

    override var value: Int {
        get { other }
        set { other = newValue }
    }
}

/// The same override, in a class that names no key paths: a string key path reads `value`'s storage.
class UnnamedGauge: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var value = 0
}

/// Overrides `value` without naming it for string key paths (see `UnnamedGauge`).
final class UnnamedOverridingGauge: UnnamedGauge, @unchecked Sendable {
    @Observed var other = 100

    override var value: Int {
        get { other }
        set { other = newValue }
    }
}

/// Holds a gauge, for string chains that end at a named key path.
final class GaugePanel: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var gauge: NamedGauge?
}

/// Names, for "count", a key path of another class: a mistake string key paths report.
final class MisnamingGauge: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var count = 0

    static func keyPath(forKey key: String) -> AnyKeyPath? {
        key == "count" ? \ChainedLabel.count : nil
    }
}

/// `summary` is computed from plain storage announced by hand, declared to depend on it, and named for
/// string key paths; `shout` is named too, and reads `name` by name itself.
final class NamedReport: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    private var storedEntries = 0
    @Observed var name = ""

    /// Plain storage: its setter announces it by hand.
    var entries: Int {
        get {
            accessValue(for: \.entries)
            return storedEntries
        }
        set { withChange(of: \.entries) { storedEntries = newValue } }
    }

    /// Reads `storedEntries` directly, which no getter reports: only the declaration ties it to `entries`.
    var summary: String { "\(storedEntries) entries" }

    var shout: String { (self[kvoKeyPath: "name"] as? String ?? "").uppercased() }

    static func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        keyPath == \NamedReport.summary ? [\NamedReport.entries] : []
    }

    static func keyPath(forKey key: String) -> AnyKeyPath? {
        switch key {
        case "summary": \NamedReport.summary
        case "shout": \NamedReport.shout
        default: nil
        }
    }
}

/// Properties of existential types, set by name with values of many types; `note` is a computed one the
/// class names by key path.
final class Parcel: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var contents: Any = 0
    @Observed var label: (any CustomStringConvertible)? = nil
    var note: Any {
        get { contents }
        set { contents = newValue }
    }

    static func keyPath(forKey key: String) -> AnyKeyPath? {
        key == "note" ? \Parcel.note : nil
    }
}

/// Properties of types that boxing in `Any?` blurs: a nested optional, `Any?`, an optional existential
/// that `Optional` itself conforms to.
final class Layers: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var nested: Int?? = 5
    @Observed var anything: Any? = 0
    @Observed var key: (any Hashable)? = 1
}
