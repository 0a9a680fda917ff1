/// An observation that lives as long as this token: the `NSKeyValueObservation` shape.
///
/// ```swift
/// let token = try circle.observe(\.radius, options: [.new]) { circle, change in
///     print("radius:", change.newValue!)
/// }
/// token.invalidate()   // or just let the token go
/// ```
///
/// Dropping the token or calling ``invalidate()`` ends the registration; once `invalidate()` returns,
/// no callback starts (called from inside a callback, it does not wait for callbacks running on
/// other threads). `invalidate()` may be called any number of times, from any thread. The token does
/// not keep the observed object alive; when the object deinitialises the token becomes invalid.
public final class KVOObservation: Sendable {
    private let info: KVOInfo

    init(info: KVOInfo) {
        self.info = info
    }

    deinit {
        info.cancel()
    }

    /// Ends the observation; calling it again does nothing.
    public func invalidate() {
        info.cancel()
    }

    /// False once invalidated, or once the observed object has deinitialised.
    public var isValid: Bool {
        !info.isCancelled
    }

    /// Keeps this token in `bag`, so that it lives (and ends) with the bag.
    public func store(in bag: KVOObservationBag) {
        bag.insert(self)
    }
}

/// Holds observation tokens and ends them together: when the bag deinitialises, or on ``invalidateAll()``.
///
/// ```swift
/// let bag = KVOObservationBag()
/// try model.observe(\.name) { _, change in print(change.newValue!) }.store(in: bag)
/// try model.observe(\.age) { _, change in print(change.newValue!) }.store(in: bag)
/// bag.invalidateAll()
/// ```
public final class KVOObservationBag: @unchecked Sendable {  // `observations` is guarded by `lock`
    private let lock = Lock()
    private var observations: [KVOObservation] = []

    /// Creates an empty bag.
    public init() {}

    deinit {
        invalidateAll()
    }

    /// Adds a token; it is invalidated with the bag.
    public func insert(_ observation: KVOObservation) {
        lock.withLock { observations.append(observation) }
    }

    /// Invalidates every token in the bag and empties it; the bag can be filled again.
    public func invalidateAll() {
        let ended = lock.withLock {
            let ended = observations
            observations = []
            return ended
        }
        for observation in ended {
            observation.invalidate()
        }
    }

    /// How many tokens the bag holds.
    public var count: Int {
        lock.withLock { observations.count }
    }
}

extension KeyValueObservable {
    /// Observes `keyPath` of this object for as long as the returned token lives.
    ///
    /// ```swift
    /// let token = try person.observe(\.address.city, options: [.initial, .new]) { person, change in
    ///     print(change.newValue!)
    /// }
    /// ```
    ///
    /// Callbacks run synchronously on the thread that makes the change; `.initial` is delivered
    /// before this returns.
    ///
    /// - Parameters:
    ///   - keyPath: What to observe: a property, a chain or a computed property.
    ///   - options: What each record carries.
    ///   - changeHandler: Called with the object and each change record.
    /// - Returns: The token; the observation ends when it is invalidated or released.
    /// - Throws: ``KVOError`` when `keyPath` reads no observable property.
    /// - Important: A key path is read when observed, to find what it depends on: `\.address!.city`
    ///   traps there while `address` is nil, even without `.initial`. Observe `\.address?.city`.
    @inlinable
    public func observe<Value>(
        _ keyPath: KeyPath<Self, Value>,
        options: KVOOptions = [.new],
        changeHandler: @escaping @Sendable (Self, KVOChange<Value>) -> Void
    ) throws(KVOError) -> KVOObservation {
        // Made here, where the types are concrete (see `TypedKVOInfo`).
        let info = TypedKVOInfo(
            object: self,
            reader: .typed(keyPath),
            options: options,
            owner: nil,
            box: _HandlerBox(changeHandler),
            onObjectDeinit: nil
        )
        return try _observe(info)
    }

    /// Starts the registration and returns its token.
    @usableFromInline
    func _observe<Value>(_ info: TypedKVOInfo<Self, Value>) throws(KVOError) -> KVOObservation {
        if info.options.contains(.initial) {
            try info.start(on: self) { value in info.deliverInitial(value, to: self) }
        } else {
            try info.start(on: self, reading: nil)
        }
        return KVOObservation(info: info)
    }
}
