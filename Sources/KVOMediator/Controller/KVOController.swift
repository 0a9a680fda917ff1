/// Observes other objects on behalf of one observer, and stops observing when it goes away.
///
/// Give the observer a controller and observe; never write a removal:
///
/// ```swift
/// final class CircleView {
///     lazy var kvoController = KVOController(observer: self)
///     init(circle: Circle) {
///         kvoController.observe(circle, keyPath: \.radius, options: [.initial, .new]) { view, circle, change in
///             view.draw(radius: change.newValue!)
///         }
///     }
/// }
/// ```
///
/// Contracts (FBKVOController's, made safe):
/// - The observer is held weakly; observed objects weakly too, unless `retainsObserved` is true.
///   Observing `self` makes no retain cycle. A deinitialising observer is never called.
/// - **Observing an already observed object and key path is ignored**: the first registration wins,
///   with its options and callback, and no second `.initial` record is sent. Debug builds report an
///   ignored `observe(_:keyPath:…)` or `observe(_:each:keyPath:…)` made at another place in the code than
///   the one that stays (``KVOError/Reason-swift.enum/alreadyObserved``); a string and a typed key path of
///   one chain are one registration, silently. Two controllers are independent of each other.
/// - Observing a nil object is a no-op, and so are unobserving an object or key path that is not
///   observed and calling ``unobserveAll()`` again.
/// - When the controller deinitialises it runs ``unobserveAll()``. When an observed object
///   deinitialises, its registrations end and its entry is removed, so an object later created at
///   the same address is a new object.
/// - Callbacks run synchronously on the thread that made the change, with no lock held: they may
///   observe, unobserve, mutate observed objects, or release the controller.
/// - Once ``unobserve(_:keyPath:)-(_,PartialKeyPath<Object>)``, ``unobserve(_:)`` or ``unobserveAll()``
///   returns, no callback of those registrations starts (called from inside a callback, it does not
///   wait for callbacks already running on other threads).
/// - A key path that reads nothing observable is not registered: the controller's
///   ``errorHandler`` receives a ``KVOError`` naming the type and the key path.
/// - **A controller observes only while it lives.** Keep it in a stored property of its observer, as
///   above: one kept in a local ends its observations when it goes (after the `.initial` record, say).
///   Debug builds report that to ``errorHandler`` (``KVOError/Reason/controllerReleased``) when the
///   observer is still alive; call ``unobserveAll()`` first to let a controller go on purpose.
/// - `delivery: .queue(q)` and `delivery: .mainActor` hand the observer to another thread, so they
///   need a `Sendable` observer: a `@MainActor` class is one.
public final class KVOController<Observer: AnyObject> {
    /// The observer, held weakly; nil once it has gone.
    public var observer: Observer? { _observer.object }
    /// The one reference to the observer, weak in effect (see `WeakReference`), which every
    /// registration's callbacks load it from.
    @usableFromInline
    let _observer: WeakReference<Observer>
    /// Whether observed objects are held strongly until unobserved.
    public let retainsObserved: Bool
    /// Receives the errors of observe calls that do not throw; by default they are printed to standard error.
    public var errorHandler: (KVOError) -> Void = { error in
        writeToStandardError(error.message)
    }

    /// The registrations and what goes with them, under the controller's lock.
    let state = LockProtected(ControllerState(), level: .controller)
    /// Orders this controller's main-actor deliveries (`delivery: .mainActor`).
    @usableFromInline
    let mainActorLane = MainActorLane()

    /// Creates a controller for `observer`.
    ///
    /// - Parameters:
    ///   - observer: The object notified of changes; held weakly and passed to every block and action.
    ///   - retainsObserved: When true, observed objects are held strongly until unobserved (or until
    ///     the controller goes away); when false (the default) they are held weakly.
    public init(observer: Observer, retainsObserved: Bool = false) {
        self._observer = WeakReference(observer)
        self.retainsObserved = retainsObserved
    }

    deinit {
        #if DEBUG
        reportReleaseWhileObserving()
        #endif
        unobserveAll()
    }

    #if DEBUG
    /// Reports a controller that goes while its observer lives and it still observes: a controller kept
    /// in a local stops after its `.initial` record, with no other sign. (Debug builds: a controller
    /// replaced on purpose, as FBKVOController's cells did, would otherwise log in production.)
    private func reportReleaseWhileObserving() {
        guard let observer = _observer.object else { return }
        let (count, first) = state.withLock { state -> (Int, KVOInfo?) in
            var first: KVOInfo?
            state.table.forEachUsedBucket { bucket in if first == nil { first = bucket.info } }
            return (state.table.count, first)
        }
        withExtendedLifetime(observer) {}
        guard count > 0, let first else { return }
        let objectType = first.loadObject().map { "\(type(of: $0))" } ?? first.objectTypeName
        errorHandler(
            .controllerReleased(observerType: Observer.self, count: count, keyPath: first.keyPathName, type: objectType)
        )
    }
    #endif

    /// Stops observing `keyPath` of `object`.
    ///
    /// Unobserving a nil object, or an object or key path that is not observed, ends nothing. The string
    /// form of the same chain (`"address.city"` for `\.address?.city`) ends too while the chain can be
    /// followed to its end. To tell that, `unobserve` reads no property when this controller observes the
    /// key path itself (its registration knows what it reads). When it does not, but observes some string
    /// key path of `object`, it reads the key path on this thread once, as `observe` does, to find the
    /// chain's name.
    public func unobserve<Object: KeyValueObservable>(_ object: Object?, keyPath: PartialKeyPath<Object>) {
        guard let object else { return }
        // One lock section when the object has no string registration here (the common case); with some,
        // nothing is removed until the name is known.
        var hasStringForm = false
        remove(from: object) { state, id in
            hasStringForm = state.hasObservedStrings && state.table.containsOtherForm(id, isString: false)
            return hasStringForm ? InlineList() : state.table.removeAll(of: id, keyPath: keyPath)
        }
        guard hasStringForm else { return }
        let typed = state.withLock { state in
            state.table.infos(of: ObjectIdentifier(object)).first {
                $0.stringKeyPath == nil && KeyPathHashes.shared.areEqual($0.keyPath, keyPath)
            }
        }
        // The chain's name, found outside the lock (naming loads registrars): from what the typed
        // registration reads now, not by reading the properties again (another thread may be setting them).
        // (One that ended meanwhile, on another thread, has dropped its reads: the key path is read then.)
        let name: String? =
            if let typed, !typed.isCancelled { typed.namePath } else { namePath(of: keyPath, on: object) }
        remove(from: object) { state, id in
            var removed = state.table.removeAll(of: id, keyPath: keyPath)
            if let name {
                state.table.removeAll(of: id) { $0.stringKeyPath == name }.forEachElement { removed.append($0) }
            }
            return removed
        }
    }

    /// Removes and cancels the registrations on `object` that match; true if there were any.
    @discardableResult
    func remove<Object: KeyValueObservable>(from object: Object, where matches: (KVOInfo) -> Bool) -> Bool {
        remove(from: object) { state, id in state.table.removeAll(of: id, where: matches) }
    }

    /// Removes what `take` takes out of the table for the object (under the lock), then cancels it and
    /// lets the object go if it is no longer observed; true if anything was taken.
    @discardableResult
    private func remove(
        from object: AnyObject,
        taking take: (inout ControllerState, ObjectIdentifier) -> InlineList<KVOInfo>
    ) -> Bool {
        let id = ObjectIdentifier(object)
        let (removed, retained): (InlineList<KVOInfo>, AnyObject?) = state.withLock { state in
            let removed = take(&state, id)
            return (removed, removed.isEmpty ? nil : state.releaseIfUnobserved(id))
        }
        KVODispatcher.shared.end(removed)
        withExtendedLifetime(retained) {}
        return !removed.isEmpty
    }

    /// Stops observing every key path of `object`.
    ///
    /// Unobserving a nil object, or one that is not observed, does nothing.
    public func unobserve(_ object: AnyObject?) {
        guard let object else { return }
        let elements = state.withLock { $0.elementObservations.removeValue(forKey: ObjectIdentifier(object)) }
        for entry in elements ?? [] { entry.end() }
        remove(from: object) { state, id in state.table.removeAll(of: id) { _ in true } }
    }

    /// Stops observing everything; calling it again does nothing. `deinit` calls it.
    public func unobserveAll() {
        let (taken, retained, elements) = state.withLock { state in
            defer {
                state.retainedObjects = [:]
                state.elementObservations = [:]
            }
            return (state.table.removeAll(), state.retainedObjects, state.elementObservations)
        }
        for entry in elements.values.joined() { entry.end() }
        guard !taken.isEmpty else { return }
        var infos = taken
        // In address order rather than the table's (which is at random): registrations made one after
        // another sit one after another in memory, so a large teardown walks memory forward, where
        // the processor prefetches, instead of missing the cache at every step.
        infos.sort { ObjectIdentifier($0) < ObjectIdentifier($1) }
        KVODispatcher.shared.end(infos)
        withExtendedLifetime(retained) {}
    }

    /// The number of registrations this controller holds: one per key path of each object it observes,
    /// and one per observation of a collection's elements (`observe(_:each:keyPath:…)`) that has not ended.
    public var observationCount: Int {
        state.withLock { state in
            state.table.count + state.elementObservations.values.reduce(0) { $0 + $1.count(where: \.isLive) }
        }
    }
}

@available(*, unavailable, message: "A KVOController belongs to its observer; share the observer, not its controller")
extension KVOController: Sendable {}

extension KVOController: KVOInfoOwner {
    func infoDidEnd(_ info: KVOInfo) {
        let retained = state.withLock { state in
            state.table.remove(info, of: info.objectID) ? state.releaseIfUnobserved(info.objectID) : nil
        }
        withExtendedLifetime(retained) {}
    }
}
