/// A weak property of a ``KeyValueObservable`` class that announces its changes, including its
/// referent's death: the observable form of `weak var`.
///
/// ```swift
/// final class Screen: KeyValueObservable {
///     let kvoRegistrar = KVORegistrar()
///     @ObservedWeak var delegate: Session?     // Session: KeyValueObservable
/// }
///
/// let token = try screen.observe(\.delegate?.status, options: [.new]) { _, change in
///     print(change.newValue)                   // Optional(nil) once the session deinitialises
/// }
/// ```
///
/// It holds its referent weakly, as `weak var` does: it never keeps it alive, and reads nil once the
/// referent has started deinitialising. Reads and sets are observable exactly as ``Observed``'s are:
/// by typed key path (`\.delegate`), through chains (`\.delegate?.status`), by string key path
/// (`"delegate"`, `"delegate.status"`), with tokens, streams, `.initial`, `.old` and `.prior`.
///
/// Unlike Cocoa's `weak` (and `assign`) properties, which never told their observers that the object
/// had gone, the referent's death is announced, as ReactiveObjC's dealloc-driven nil did:
/// - observers of the property get one `.setting` record whose new value is nil, and whose old value
///   is nil too: the referent cannot be handed out while it deinitialises (`.prior` observers get the
///   prior record first, with old value nil);
/// - observers of a chain through it (`\.delegate?.status`) get one record whose new value is nil;
/// - nothing is delivered when nobody observes the holder, or when the holder has started
///   deinitialising itself (it may do so on another thread at the same moment: that is safe);
/// - each property holding the referent is told, on every holder;
/// - a set moves the hook: after `screen.delegate = other` (or `= nil`, announced as any set), the old
///   referent's death notifies nothing.
///
/// The announcement is made on the thread where the referent deinitialises, synchronously, when its
/// ``KVORegistrar`` does (when the object does, unless something else keeps its registrar), after the
/// registrations on the referent itself have ended, and chains through the property re-read it there.
/// So, as for two sets of one property, a set of the property on another thread at that moment is a
/// data race: give the property one writer at a time, or make its referent die on the writer's thread.
///
/// On a class that bridges to Swift's Observation (see <doc:UsingKVOMediatorWithObservationAndSwiftUI>),
/// reads, sets and the referent's death are reported there too (a set by name, not).
///
/// A record is a value: a ``KVOChange`` whose old or new value is the referent keeps it alive while
/// the record is kept, and a `values(for: \.delegate)` stream keeps the referents it has buffered
/// until they are consumed. To follow a referent without holding it, observe what you need of it
/// (`\.delegate?.status`), or drop records once handled.
///
/// The property starts nil: declare it without an initial value, and assign it once the object is
/// initialised (in `init` after every stored property has its value, or later).
///
/// > Important: Only ``KeyValueObservable`` classes can be referents, since it is their registrar
/// > that sees the death; anything else (a class that does not conform, a protocol existential such
/// > as `(any SessionDelegate)?`, a value type) is rejected by the compiler, as `Referent` is
/// > constrained to ``KeyValueObservable``. As with ``Observed``, the holder must conform too. For the
/// > usual delegate shape, `weak var delegate: (any EditorDelegate)?`, keep a plain `weak var` behind
/// > a computed property that calls ``KeyValueObservable/accessValue(for:)`` in its getter and
/// > ``KeyValueObservable/withChange(of:_:)`` in its setter: its sets are observed, directly and
/// > through chains, but its referent's death is not announced (<doc:CommonMistakes> has the recipe).
///
/// - Complexity: A read costs a weak load. A set of a new referent allocates its link (two small
///   objects) and takes the referent's registrar lock once to list it, and the old referent's once
///   to unlist it; setting the referent it already holds allocates nothing. A referent's death costs
///   one announcement per property holding it.
@propertyWrapper
public struct ObservedWeak<Referent: KeyValueObservable> {
    /// Nil while the property was never set, or was set to nil.
    var reference: ObservedWeakReference<Referent>?

    /// Creates a weak property that holds nothing.
    public init() {}

    @available(*, unavailable, message: "@ObservedWeak is only available on properties of KeyValueObservable classes")
    public var wrappedValue: Referent? {
        get { fatalError("@ObservedWeak is only available on properties of KeyValueObservable classes") }
        // swift-format-ignore
        set { fatalError("@ObservedWeak is only available on properties of KeyValueObservable classes") }
    }

    /// The storage access the compiler uses for `@ObservedWeak` properties of classes.
    public static subscript<Object: KeyValueObservable>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Referent?>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Referent? {
        get {
            _reportRead(of: object, storage: storageKeyPath, valueType: Referent?.self) { wrappedKeyPath }
            if KVORegistrar._isTracking { ReadRecorder.noteWeakLinkRead() }
            return object[keyPath: storageKeyPath].reference?.referent
        }
        set {
            let field = _storageOffset(storageKeyPath, of: object)
            if Object._reportsToObservation {
                Object._withObservationMutation(
                    of: object,
                    keyPath: { wrappedKeyPath },
                    field: field,
                    valueType: Referent?.self,
                    { set(newValue, field: field, of: object, wrapped: wrappedKeyPath) }
                )
            } else {
                set(newValue, field: field, of: object, wrapped: wrappedKeyPath)
            }
        }
    }

    /// Sets the storage at byte offset `field` of `object`, as the property's setter (and a set by
    /// name) does: a new referent gets a new link, and the old link ends when the store is made.
    private static func set<Object: KeyValueObservable>(
        _ newValue: Referent?,
        field: Int,
        of object: Object,
        wrapped: AnyKeyPath?
    ) {
        let storage = FieldAddress(of: object, at: field).pointer(to: Self.self)
        let current = storage.pointee.reference
        let oldValue = current?.referent
        let replacement: ObservedWeakReference<Referent>? =
            if let newValue, newValue !== oldValue {
                ObservedWeakReference(newValue, holder: object, field: field, wrapped: wrapped)
            } else if newValue == nil {
                nil
            } else {
                current
            }
        // The old link ends here, not when `current` happens to be released: the old referent's
        // death must not be announced once the property holds another.
        func store() {
            storage.pointee.reference = replacement
            if replacement !== current { current?.unlink() }
        }
        let registrar = object.kvoRegistrar
        guard registrar._hasObservers else { return store() }
        _withValuePointer(to: oldValue) { old in
            _withValuePointer(to: newValue) { new in
                registrar._change(
                    field: field,
                    of: object,
                    oldValue: ValueAddress(old),
                    newValue: ValueAddress(new),
                    type: Referent?.self
                ) {
                    store()
                }
            }
        }
    }
}

extension ObservedWeak: Sendable where Referent: Sendable {}

extension ObservedWeak: ObservedStorage {
    static var valueType: Any.Type { Referent?.self }
    static var isWeak: Bool { true }

    static func value(at address: FieldAddress) -> Any {
        address.pointer(to: Self.self).pointee.reference?.referent as Any
    }

    static func set(_ value: Any?, field: Int, of object: some KeyValueObservable, registrarAt _: Int?) -> Bool {
        guard let newValue = value as? Referent? else { return false }
        set(newValue, field: field, of: object, wrapped: nil)
        return true
    }
}
