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
///
/// > Important: A token observes only while it is kept. `_ = try object.observe(…)` ends at once (after
/// > the `.initial` record, if asked for). Debug builds report a token that goes, still valid, before it
/// > delivered any change, on the thread that made it with no token made there since, to the object's
/// > ``KeyValueObservable/handleKVOError(_:)`` (``KVOError/Reason/tokenReleased``). That is a hint: a
/// > token kept in a property whose owner goes as soon, before any change, is reported too. Call
/// > ``invalidate()`` to let a token go on purpose.
public final class KVOObservation: Sendable {
    @usableFromInline
    let info: KVOInfo
    /// What ends with the token besides its registration: an observation of a collection's elements.
    private let companion: (any EndsWithToken)?
    #if DEBUG
    /// The thread that made the token, and how many tokens it had made with this one.
    private let origin: (thread: ObjectIdentifier, serial: UInt64)
    #endif

    @usableFromInline
    init(info: KVOInfo, companion: (any EndsWithToken)? = nil) {
        self.info = info
        self.companion = companion
        #if DEBUG
        let context = ThreadContext.current
        context.tokensMade &+= 1
        origin = (ObjectIdentifier(context), context.tokensMade)
        #endif
    }

    deinit {
        #if DEBUG
        reportIfDiscarded()
        #endif
        KVODispatcher.shared.end(info)
        companion?.end()
    }

    #if DEBUG
    /// Reports a token that goes, still valid, before it delivered any change, on the thread that made it
    /// with no token made there since: the mark of `_ = try object.observe(…)`, which otherwise delivers
    /// nothing with no sign. A token kept in a property whose owner goes as soon, with nothing changed and
    /// no other token made, has the same mark and is reported too (a hint, in debug builds only; its
    /// message says to call `invalidate()` to let a token go on purpose).
    private func reportIfDiscarded() {
        guard !info.isCancelled, !info.deliveredChange.load(ordering: .relaxed),
            let context = ThreadContext.currentIfPresent,
            ObjectIdentifier(context) == origin.thread, context.tokensMade == origin.serial
        else { return }
        let object = info.loadObject()
        let typeName = object.map { "\(type(of: $0))" } ?? info.objectTypeName
        let error = KVOError.tokenReleased(keyPath: info.keyPathName, type: typeName)
        if let observable = object as? any KeyValueObservable {
            observable.handleKVOError(error)
        } else {
            writeToStandardError(error.message)
        }
    }
    #endif

    /// Ends the observation; calling it again does nothing.
    public func invalidate() {
        KVODispatcher.shared.end(info)
        companion?.end()
    }

    /// The name of the key path observed on each element, for an observation of a collection's elements
    /// with an element registered (see `ElementMembers`).
    var elementKeyPathName: String? {
        (companion as? ElementMembers)?.elementKeyPathName
    }

    /// False once invalidated, or once the observed object has deinitialised.
    public var isValid: Bool {
        !info.isCancelled
    }

    /// Keeps this token in `bag`, so that it lives (and ends) with the bag.
    public func store(in bag: KVOObservationBag) {
        bag.insert(self)
    }

    /// The registration, its gate entered (nil once cancelled), unretained: held by its gate until the caller
    /// leaves it (see `KVOInfo`).
    func enteredRegistration() -> Unretained<KVOInfo>? {
        info.tryEnter() ? Unretained(info) : nil
    }
}

/// What a token ends besides its registration (see `KVOObservation`).
@usableFromInline
protocol EndsWithToken: AnyObject, Sendable {
    /// Ends it. Idempotent.
    func end()
}
