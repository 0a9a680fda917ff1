/// A bad observation request: reported instead of registering something that could never fire. Also
/// a set or read by string key path that cannot be done (``KeyValueObservable/setValue(_:atKeyPath:)-(Any?,_)``).
///
/// ```swift
/// do {
///     try controller.observe(person, keyPath: "adress.city") { _, _, _ in }
/// } catch {
///     print(error)   // KVOMediator: Person has no observable property "adress"; …
/// }
/// ```
public struct KVOError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The key path reads no `@Observed` property and reports no `accessValue(for:)`.
        case nothingObservable
        /// A string key path names a property the type does not have, or one that is not observable.
        case unknownKey(String)
        /// A string key path is not of the form `name` or `name.name…`.
        case malformedKeyPath
        /// A value set or read by string key path is not of the type asked for: `expected` is the
        /// property's declared type (for a set) or the type asked for (for a typed read), `actual` the
        /// value's type, or `"nil"`.
        case typeMismatch(expected: String, actual: String)
        /// A set by string key path could not reach its property: the link at this part of the path
        /// (`"address"` of `"address.city"`) is nil.
        case nilLink(String)
        /// The controller's observer has already gone (a temporary passed to `KVOController(observer:)`,
        /// say), so nothing could ever be delivered: nothing is registered.
        case observerGone
        /// A `didChange` of a collection has no matching `willChange` on its thread (see
        /// ``KeyValueObservable/didChange(_:at:for:)``): nothing was announced.
        case unmatchedDidChange
        /// A `didChange` differs from the innermost `willChange` of its key path on its thread (in kind,
        /// indexes, set mutation, objects or form): nothing was announced.
        case mismatchedChange
        /// A ``KVOController`` went away while its observer lived and it still had registrations (a local
        /// controller that was never stored, say): they ended with it. Reported in debug builds, to the
        /// controller's ``KVOController/errorHandler``; `unobserveAll()` first ends them on purpose.
        case controllerReleased
        /// A ``KVOObservation`` went away before it delivered any change (a discarded token:
        /// `_ = try object.observe(…)`, or one let go as soon as it was kept): its observation ended with
        /// it. A hint, reported in debug builds, to the object's ``KeyValueObservable/handleKVOError(_:)``;
        /// `invalidate()` first lets a token go on purpose.
        case tokenReleased
        /// Indexes that the array does not have (before the change for a removal or a replacement,
        /// after it for an insertion or a replacement), or indexes given for a setting: nothing was announced.
        case invalidIndexes
        /// A controller's `observe` of a key path of an object that it observes already, or an element-wise
        /// `observe(_:each:keyPath:…)` of a key path of a collection's elements that it observes already,
        /// made at another place in the code: ignored, with its options and callback (the first registration
        /// stays, as FBKVOController keeps it). A hint, reported in debug builds, to the controller's
        /// ``KVOController/errorHandler``; the same `observe` call made again says nothing.
        case alreadyObserved
    }

    /// What went wrong.
    public let reason: Reason
    /// The key path, as written or as printed.
    public let keyPath: String
    /// The name of the type the key path starts from (`Person` for `"address.cty"` of a `Person`, even
    /// though the unknown key is `Address`'s: the ``message`` names the type where the lookup failed, and
    /// lists that type's keys).
    public let typeName: String
    /// The whole message: names the key path and the type, and says how to fix it.
    public let message: String

    public var description: String { message }

    static func observerGone(keyPath: String, type: Any.Type, observerType: Any.Type) -> KVOError {
        KVOError(.observerGone, keyPath: keyPath, type: type) { typeName in
            "not observing \(keyPath) of \(typeName): this KVOController's observer (a \(observerType)) has "
                + "already been released, so no callback could ever run. The controller holds its observer weakly: "
                + "keep the observer alive (store the controller in it, as "
                + "`lazy var kvoController = KVOController(observer: self)`), not a temporary."
        }
    }

    static func nothingObservable(keyPath: AnyKeyPath, type: Any.Type) -> KVOError {
        let path = String(describing: keyPath)
        return KVOError(.nothingObservable, keyPath: path, type: type) { typeName in
            "the key path \(path) of \(typeName) reads no observable property, so no change to it could ever be "
                + "announced. Mark the stored properties it reads with @Observed (in a KeyValueObservable class), or "
                + "report reads of custom storage with accessValue(for:) and announce changes with "
                + "willChangeValue(for:)/didChangeValue(for:)."
        }
    }
}

extension KVOError {
    /// An error about `keyPath` of `type`, whose message is `"KVOMediator: "` and what `explain` says
    /// given the type's name.
    init(_ reason: Reason, keyPath: String, type: Any.Type, explain: (String) -> String) {
        let typeName = String(describing: type)
        self.init(reason: reason, keyPath: keyPath, typeName: typeName, message: "KVOMediator: " + explain(typeName))
    }
}
