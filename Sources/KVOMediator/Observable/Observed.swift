/// A property of a ``KeyValueObservable`` class that announces its changes to observers.
///
/// ```swift
/// final class Person: KeyValueObservable {
///     let kvoRegistrar = KVORegistrar()
///     @Observed var name = ""
///     @Observed(automaticallyNotifies: false) var score = 0   // announced by hand
/// }
/// ```
///
/// Reading the property reports the read to an observation being set up; setting it tells the
/// observers with the old and the new value, synchronously, on the setting thread. With no observer
/// on the object, a set costs one atomic load more than a plain stored property: no lock, no
/// allocation, no lookup. In a class that also conforms to Observation's `Observable`, reads and sets are
/// reported to Observation too (see <doc:UsingKVOMediatorWithObservationAndSwiftUI>).
///
/// > Important: Observers run inside the wrapper's setter, which Swift calls *before* the property's own
/// > `didSet` (a property wrapper has no hook after it). So with
/// > `@Observed var text = "" { didSet { wordCount = count(text) } }`, an observer of `\.text` reads the
/// > old `wordCount`, where Cocoa would have finished the whole setter first. Make derived state a
/// > computed property instead, `var wordCount: Int { count(text) }`: it is tracked, so observers of
/// > `\.text` read it up to date, and it can be observed itself, with old and new values (see
/// > <doc:CommonMistakes>).
///
/// > Tip: Use `@Observed` only on properties of a class that conforms to ``KeyValueObservable``;
/// > elsewhere the compiler rejects it. A plain `var` is not observable: observing a key path that
/// > reads only plain properties is reported as an error rather than registering silently.
///
/// > Important: In a class that does not conform, the compiler's error has no source location (it
/// > is in code the compiler writes for the wrapper, and Swift allows only one such accessor per
/// > wrapper, so a second, unconstrained one with a better message cannot be declared):
/// > `<unknown>:0: error: static subscript 'subscript(_enclosingInstance:wrapped:storage:)' requires
/// > that 'Circle' conform to 'KeyValueObservable'`, once per accessor. The fix is in the class it
/// > names: declare `final class Circle: KeyValueObservable` with `let kvoRegistrar = KVORegistrar()`.
@propertyWrapper
public struct Observed<Value> {
    @usableFromInline
    var value: Value
    @usableFromInline
    let automaticallyNotifies: Bool

    /// Creates an observed property that announces every set.
    public init(wrappedValue: Value) {
        self.value = wrappedValue
        self.automaticallyNotifies = true
    }

    /// Creates an observed property; with `automaticallyNotifies: false` sets are not announced, and the
    /// owner announces changes with `willChangeValue(for:)` / `didChangeValue(for:)` (Cocoa's
    /// `automaticallyNotifiesObservers(forKey:)` returning false).
    public init(wrappedValue: Value, automaticallyNotifies: Bool) {
        self.value = wrappedValue
        self.automaticallyNotifies = automaticallyNotifies
    }

    @available(*, unavailable, message: "@Observed is only available on properties of KeyValueObservable classes")
    public var wrappedValue: Value {
        get { fatalError("@Observed is only available on properties of KeyValueObservable classes") }
        // swift-format-ignore
        set { fatalError("@Observed is only available on properties of KeyValueObservable classes") }
    }

    /// The storage access the compiler uses for `@Observed` properties of classes.
    ///
    /// The property is named at run time by the offset of its storage in the object, which the
    /// optimiser folds to a constant: a set makes no key path at all, only the getter does while an
    /// observation is being set up. (In a class that bridges to Observation, the first read or set of
    /// each property makes one, which the bridge keeps: see `CanonicalKeyPaths`.)
    @inlinable
    public static subscript<Object: KeyValueObservable>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        // Always inlined: only then are the compiler's literal key paths folded into direct storage access.
        @inline(__always) get {
            _reportRead(of: object, storage: storageKeyPath, valueType: Value.self) { wrappedKeyPath }
            return object[keyPath: storageKeyPath].value
        }
        @inline(__always) set {
            // Told to Observation around the set if the class bridges to it (a constant false otherwise), unless
            // the owner announces this property's changes by hand (then its will/did report them).
            if Object._reportsToObservation, object[keyPath: storageKeyPath].automaticallyNotifies {
                Object._withObservationMutation(
                    of: object,
                    keyPath: { wrappedKeyPath },
                    field: _storageOffsetForBridge(storageKeyPath, of: object),
                    valueType: Value.self,
                    { _set(newValue, of: object, storage: storageKeyPath) }
                )
            } else {
                _set(newValue, of: object, storage: storageKeyPath)
            }
        }
    }

    /// Sets the property at `storageKeyPath` of `object`, announcing the change to its observers.
    @inlinable
    @inline(__always)
    static func _set<Object: KeyValueObservable>(
        _ newValue: Value,
        of object: Object,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) {
        let registrar = object.kvoRegistrar
        // With no observer on the object: one atomic load, then a plain store. All else is a call, so
        // that this much is inlined wherever the property is set. (The same load says whether a
        // transaction may have made the property quiet: see `_storesQuietly(field:)`.)
        let flag = registrar._observerFlag
        guard flag != 0 else {
            object[keyPath: storageKeyPath].value = newValue
            return
        }
        let field = _storageOffset(storageKeyPath, of: object)
        // (Each a tail call: a call that returns here would make every setter save registers.)
        if _slowPath(flag & KVORegistrar._quietHint != 0) {
            guard TrivialWord.fits(Value.self) else {
                return _setHinted(object, to: newValue, registrar: registrar, field: field)
            }
            return _setHintedTrivial(
                object,
                bits: TrivialWord.word(of: newValue),
                registrar: registrar,
                field: field,
                size: MemoryLayout<Value>.size,
                type: Value.self
            )
        }
        _setObserved(object, to: newValue, registrar: registrar, field: field)
    }

    /// A set of the `@Observed` storage at byte offset `field` of `object` while the object has
    /// observers: the setter's slow path, out of line (specialised for `Value` in the caller's module).
    ///
    /// It is given the storage's offset, not its key path: a key path passed to a function that is not
    /// inlined is built at run time, which costs more than the whole notification. Its parameters are
    /// in the order a setter holds them, so that the inlined part does not move registers to call it.
    @inlinable
    @inline(never)
    static func _setObserved(_ object: AnyObject, to newValue: Value, registrar: KVORegistrar, field: Int) {
        // The value is the storage's first field, and the flag lies after it (`notifiesAutomatically`):
        // reached from `Value`'s layout, so that unspecialised code (a set by name) does not look up this
        // `Observed<Value>`'s metadata for its fields' offsets.
        assert(MemoryLayout<Self>.offset(of: \Self.value) == 0)
        let storage = FieldAddress(of: object, at: field).pointer(to: Value.self)
        guard notifiesAutomatically(field: field, of: object) else {
            storage.pointee = newValue
            return
        }
        // Values go to the registrar by address: nothing generic runs on the notification path.
        let oldValue = storage.pointee
        _withValuePointer(to: oldValue) { oldPointer in
            _withValuePointer(to: newValue) { newPointer in
                registrar._change(
                    field: field,
                    of: object,
                    oldValue: ValueAddress(oldPointer),
                    newValue: ValueAddress(newPointer),
                    type: Value.self
                ) {
                    // The store between the prior and the change records.
                    storage.pointee = newValue
                }
            }
        }
    }

    /// `_setObserved`, when the registrar's flag hints that this thread's transaction may have made the
    /// property quiet: then, if it has, only the store.
    @inlinable
    @inline(never)
    static func _setHinted(_ object: AnyObject, to newValue: Value, registrar: KVORegistrar, field: Int) {
        guard registrar._storesQuietly(field: field) else {
            return _setObserved(object, to: newValue, registrar: registrar, field: field)
        }
        FieldAddress(of: object, at: field).pointer(to: Value.self).pointee = newValue
    }

    /// Whether the `@Observed` storage at byte offset `field` of `object` (an `Observed<Value>`, as the
    /// caller knows from the wrapped key path that read it) announces its sets.
    ///
    /// The flag is found right after the value (a struct's stored properties lie in declaration order, and
    /// a `Bool` needs no padding): from `Value`'s size, which asks the runtime nothing more, where the
    /// offset of its key path looked up this `Observed<Value>`'s metadata and its key path at each call
    /// (debug builds check the two agree).
    @inlinable
    static func notifiesAutomatically(field: Int, of object: AnyObject) -> Bool {
        let flag = MemoryLayout<Value>.size
        assert(flag == MemoryLayout<Self>.offset(of: \Self.automaticallyNotifies))
        return FieldAddress(of: object, at: field).load(fromByteOffset: flag, as: Bool.self)
    }
}

extension Observed: Sendable where Value: Sendable {}

/// Reports a read of the `@Observed` or `@ObservedWeak` property whose storage is at `storageKeyPath` of
/// `object`: to the observation this thread is evaluating, if any (the library's own read, not one for
/// Observation to track), else to Observation, if the class bridges to it (a constant; see
/// `KeyValueObservable+Observation.swift`).
///
/// One closure gives the property's key path to both: the optimiser then builds the literal inside that
/// closure, which runs only where a read needs the key path object, and the getter makes none. (With a
/// closure for each, the literal stays in the getter, built and released on every read.)
@inlinable
@inline(__always)
func _reportRead<Object: KeyValueObservable, Storage, Value>(
    of object: Object,
    storage storageKeyPath: ReferenceWritableKeyPath<Object, Storage>,
    valueType: Value.Type,
    wrapped: () -> AnyKeyPath
) {
    if _slowPath(KVORegistrar._isTracking) {
        let registrar = object.kvoRegistrar
        if registrar._isTrackingOnThisThread {
            registrar._access(field: _storageOffsetForReading(storageKeyPath, of: object), of: object, wrapped: wrapped)
            return
        }
    }
    if Object._reportsToObservation {
        Object._observationAccess(
            of: object,
            keyPath: wrapped,
            field: _storageOffsetForBridge(storageKeyPath, of: object),
            valueType: Value.self
        )
    }
}
