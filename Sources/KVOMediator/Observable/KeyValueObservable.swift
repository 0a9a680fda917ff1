/// A class whose properties can be observed.
///
/// A class opts in with one stored property and marks what it wants observable with ``Observed``:
///
/// ```swift
/// final class Circle: KeyValueObservable {
///     let kvoRegistrar = KVORegistrar()
///     @Observed var radius = 1.0
///     var area: Double { .pi * radius * radius }   // observable too: it reads `radius`
/// }
/// ```
///
/// Subclasses inherit the conformance and the registrar; they declare more `@Observed` properties
/// freely. When the object deinitialises, its registrar removes every registration on it.
///
/// A class that also conforms to Observation's `Observable` is tracked by `withObservationTracking`,
/// `Observations` and SwiftUI as well, beside its KVOMediator observers; one that does not pays nothing
/// for it (see <doc:UsingKVOMediatorWithObservationAndSwiftUI>):
///
/// ```swift
/// @MainActor
/// final class PlayerModel: KeyValueObservable, Observable {
///     let kvoRegistrar = KVORegistrar()
///     @Observed var position = 0
/// }
/// ```
public protocol KeyValueObservable: AnyObject {
    /// The object's registrar: declare it as `let kvoRegistrar = KVORegistrar()`.
    var kvoRegistrar: KVORegistrar { get }

    /// Key paths whose observable reads also affect `keyPath`, for what access tracking cannot see.
    ///
    /// Observations find their dependencies by tracking what a key path reads; declare more only when
    /// a getter hides a read, for example behind a cache (Cocoa's `keyPathsForValuesAffectingValue(forKey:)`):
    ///
    /// ```swift
    /// class func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
    ///     keyPath == \Report.summary ? [\Report.entries] : []
    /// }
    /// ```
    ///
    /// The declared key paths are read with `keyPath` each time it is evaluated, and what they declare
    /// in turn, recursively (Cocoa resolves `keyPathsForValuesAffectingValueForKey:` the same way), so a
    /// declaration applies wherever the declaring property is read: at the root of an observed key
    /// path, through a chain (`\.child?.derived`), inside a computed property that reads it. The
    /// library sees a read where it is reported: an `@Observed` property reports its own, a property
    /// with custom storage or behind a cache reports it with ``accessValue(for:)`` in its getter, and
    /// the observed key path itself always counts. A declared key path whose reading reports nothing
    /// (a plain stored property) counts as a slot of its own: ``willChangeValue(for:)`` /
    /// ``didChangeValue(for:)`` of it then announce the change. Cycles of declarations end. A string
    /// key path finds the declarations of a property whose key path its class names for the string's
    /// component (``keyPath(forKey:)``). The default is none.
    ///
    /// The answer is taken to depend only on the class and `keyPath`, as Cocoa caches its own: an answer
    /// of none is kept, for the observed key path by its registration (asked when it is made), and for an
    /// `@Observed` property read by the thread that read it (the last few kept), so that evaluating a key
    /// path whose reads declare nothing asks nothing; an answer of some key paths is kept by key path and
    /// class, and its key paths are read at each evaluation.
    static func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath]

    /// The typed key path a string key path's component `key` stands for on this class, where reading
    /// the `@Observed` storage of that name is not what the property means.
    ///
    /// A string key path reads the `@Observed` property of each name by its storage, as its setter
    /// writes it: Swift gives no way to call a getter by name. Name the key path here when the getter
    /// matters, as Cocoa's key-value coding calls it by name:
    /// - a subclass overrides the property with a computed one (name the base class's key path,
    ///   `\Base.value`, which calls the override of whatever object it is applied to);
    /// - the property declares dependencies (``keyPathsAffectingValue(for:)``), which are keyed by the
    ///   typed key path;
    /// - the property is computed, not `@Observed`, and should be observable by name.
    ///
    /// ```swift
    /// class func keyPath(forKey key: String) -> AnyKeyPath? {
    ///     key == "value" ? \Dial.value : nil
    /// }
    /// ```
    ///
    /// A component named here is read, observed and checked through that key path (its value type is
    /// the next component's type), and set through it when it is writable; any other name is the
    /// `@Observed` property of that name. The answer is taken to depend only on the class and `key`. The
    /// default is nil for every key.
    static func keyPath(forKey key: String) -> AnyKeyPath?

    /// The name people use for `keyPath`, for a key path the library cannot name itself.
    ///
    /// Change records, descriptions and errors name key paths as people write them
    /// (``KVOChange/keyPathName``): a chain of `@Observed` properties by their names (`"address.city"`),
    /// a string key path by itself. Swift gives no name for a computed property at run time; give one
    /// here if you switch on names or read logs:
    ///
    /// ```swift
    /// class func keyPathName(for keyPath: AnyKeyPath) -> String? {
    ///     keyPath == \Person.fullName ? "fullName" : nil
    /// }
    /// ```
    ///
    /// The default is nil: the library's own name (for a computed property, what it reads).
    static func keyPathName(for keyPath: AnyKeyPath) -> String?

    /// Receives the misuse of this object's changes announced by hand, which announce nothing.
    ///
    /// A ``didChangeValue(for:)``, ``didChange(_:at:for:)`` or ``didChange(_:using:for:)`` with no matching
    /// `willChange` on its thread, one that differs from it, or indexes the array does not have: the ``KVOError`` names the
    /// call, the type, the key path and the fix. The default writes its message to standard error;
    /// implement it in the conforming class to route it to a logger, or to stop in a debug build:
    ///
    /// ```swift
    /// func handleKVOError(_ error: KVOError) {
    ///     assertionFailure(error.message)
    /// }
    /// ```
    ///
    /// It is called on the thread that made the call, before the call returns.
    ///
    /// - Parameter error: What went wrong.
    func handleKVOError(_ error: KVOError)

    /// Whether this class's reads and changes are also reported to Swift's Observation: true when the
    /// class that declares the conformance to `KeyValueObservable` also conforms to `Observable`.
    ///
    /// An implementation detail of the bridge to Observation: do not implement it. A constant, so that
    /// in an optimised build a class that does not bridge pays nothing for the check.
    static var _reportsToObservation: Bool { get }

    /// Reports a read of `object` at the key path `keyPath` gives (a `KeyPath<Self, Value>`) to Swift's
    /// Observation, when `_reportsToObservation`. `field` is the byte offset of an `@Observed` property's
    /// storage, by which the bridge reports one key path object per property, and asks `keyPath` only
    /// while it has none for that property; -1 for other key paths.
    ///
    /// An implementation detail of the bridge to Observation: do not implement or call it. (Key paths come
    /// as `AnyKeyPath` because a requirement of a protocol that non-final classes adopt cannot take a
    /// `KeyPath<Self, Value>`.)
    static func _observationAccess<Value>(
        of object: Self,
        keyPath: () -> AnyKeyPath,
        field: Int,
        valueType: Value.Type
    )

    /// Runs `mutation`, a change of `object` at the key path `keyPath` gives, between Swift's
    /// Observation's `willSet` and `didSet`, when `_reportsToObservation`. `field` as for
    /// `_observationAccess`.
    ///
    /// An implementation detail of the bridge to Observation: do not implement or call it.
    static func _withObservationMutation<Value>(
        of object: Self,
        keyPath: () -> AnyKeyPath,
        field: Int,
        valueType: Value.Type,
        _ mutation: () -> Void
    )
}

extension KeyValueObservable {
    /// No declared dependencies: tracking finds them.
    public static func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        []
    }

    /// No key path named: string key paths read `@Observed` storage by name.
    public static func keyPath(forKey key: String) -> AnyKeyPath? {
        nil
    }

    /// No name of its own: the library names key paths from what they read.
    public static func keyPathName(for keyPath: AnyKeyPath) -> String? {
        nil
    }

    /// Writes the error's message to standard error.
    public func handleKVOError(_ error: KVOError) {
        writeToStandardError(error.message)
    }
}

extension KeyValueObservable {
    /// Announces that the value at `keyPath` is about to change; pair it with ``didChangeValue(for:)``.
    ///
    /// Use it for properties with custom storage (whose getter calls ``accessValue(for:)``) and for
    /// `@Observed(automaticallyNotifies: false)` properties, as Cocoa's `willChangeValue(forKey:)`.
    /// Observers asking for `.old` or `.prior` are served here, before the change.
    ///
    /// ```swift
    /// var celsius: Double {
    ///     get { accessValue(for: \.celsius); return storage }
    ///     set { willChangeValue(for: \.celsius); storage = newValue; didChangeValue(for: \.celsius) }
    /// }
    /// ```
    ///
    /// The change is announced on the observable storage that `keyPath` reads on this object (its
    /// getter is evaluated to find it), so a subclass may name the property through its own type.
    /// With no observer on the object, this costs one atomic load and a note on this thread (kept for the
    /// matching `didChangeValue(for:)`, which checks the pair). Calls nest; each must be matched by a
    /// `didChangeValue(for:)` with the same key path on the same thread.
    public func willChangeValue<Value>(for keyPath: KeyPath<Self, Value>) {
        if Self._reportsToObservation { kvoRegistrar.reportManualChange(.willSet, of: self, keyPath: keyPath) }
        kvoRegistrar.manualWillChange(of: self, keyPath: keyPath)
    }

    /// Announces that the value at `keyPath` has changed; observers are called before it returns.
    ///
    /// A `didChangeValue(for:)` without a matching ``willChangeValue(for:)`` on this thread (none, or one
    /// of another key path: `willChangeValue(for: \.a)` then `didChangeValue(for: \.b)`) announces
    /// nothing and is reported to ``handleKVOError(_:)`` with reason ``KVOError/Reason/unmatchedDidChange``,
    /// naming both calls, as the collection forms are. It never ends a pending
    /// ``willChange(_:at:for:)`` or ``willChange(_:using:for:)``, so a custom setter's own pair may run
    /// inside one of those (observers then get the setter's setting, then the collection change).
    public func didChangeValue<Value>(for keyPath: KeyPath<Self, Value>) {
        if _slowPath(KVOTrace.isTracing) { kvoRegistrar.traceManualChange(of: self, keyPath: keyPath) }
        kvoRegistrar.manualDidChange(of: self, keyPath: keyPath)
        if Self._reportsToObservation { kvoRegistrar.reportManualChange(.didSet, of: self, keyPath: keyPath) }
    }

    /// Reports a read of the value at `keyPath`, so that observations can depend on it.
    ///
    /// Call it at the start of the getter of a property with custom storage; `@Observed` properties
    /// report their reads themselves. Outside an observation's evaluation it reports nothing to
    /// KVOMediator; on a class that bridges to Swift's Observation it reports the read there (see
    /// <doc:UsingKVOMediatorWithObservationAndSwiftUI>).
    public func accessValue<Value>(for keyPath: KeyPath<Self, Value>) {
        kvoRegistrar.access(customStorage: keyPath, of: self)
        if Self._reportsToObservation, !kvoRegistrar._isEvaluatingOnThisThread {
            Self._observationAccess(of: self, keyPath: { keyPath }, field: -1, valueType: Value.self)
        }
    }

    /// Runs `mutation` between ``willChangeValue(for:)`` and ``didChangeValue(for:)`` for `keyPath`.
    ///
    /// ```swift
    /// withChange(of: \.celsius) { storage = 21 }
    /// ```
    ///
    /// - Returns: What `mutation` returns.
    public func withChange<Value, Result>(
        of keyPath: KeyPath<Self, Value>,
        _ mutation: () throws -> Result
    ) rethrows -> Result {
        willChangeValue(for: keyPath)
        defer { didChangeValue(for: keyPath) }
        return try mutation()
    }
}
