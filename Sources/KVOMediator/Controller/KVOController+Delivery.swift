import Foundation

extension KVOController {
    /// Observes `keyPath` of `object`, delivering each change on a dispatch queue instead of the
    /// mutating thread.
    ///
    /// ```swift
    /// kvoController.observe(download, keyPath: \.progress, delivery: .queue(renderQueue)) { view, change in
    ///     view.draw(progress: change.newValue!)
    /// }
    /// ```
    ///
    /// Values are captured when the change happens, so a delivery never reads a newer value. Every
    /// registration delivering to one queue shares one serial lane to it: deliveries run one at a
    /// time, in the order the changes were made (across registrations and controllers too), even on
    /// a concurrent queue. The object is not passed: it may be changing on another thread meanwhile.
    /// After `unobserve` returns, no queued delivery of that registration starts.
    ///
    /// - Parameters:
    ///   - object: The object to observe; nil does nothing.
    ///   - keyPath: What to observe.
    ///   - options: What each record carries; `.initial` is queued before this returns.
    ///   - delivery: `.queue(someQueue)`: where `block` runs.
    ///   - file: The file named as where the registration was made (in ``KVOController/debugDescription`` and
    ///     ``KVOTrace``): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    ///   - block: Called with the observer and each change record.
    /// - Note: `\.address!.city` traps here when `address` is nil (the key path is read to find what it
    ///   depends on); observe `\.address?.city` instead.
    /// - Important: The observer must be `Sendable` (a `@MainActor` class is): `block` hands it to
    ///   `queue`'s thread while the thread that observed may still be using it. For an observer that is
    ///   not, the compiler says "type 'Renderer' does not conform to the 'Sendable' protocol".
    @inlinable
    public func observe<Object: KeyValueObservable, Value: Sendable>(
        _ object: Object?,
        keyPath: KeyPath<Object, Value>,
        options: KVOOptions = [.new],
        delivery: KVOQueueDelivery,
        file: StaticString = #fileID,
        line: UInt = #line,
        block: @escaping @Sendable (Observer, KVOChange<Value>) -> Void
    ) where Observer: Sendable {
        guard let object else { return }
        let route = DeliveryRoute(delivery)
        let site = _RegistrationSites.enter(file, line, route.form, observer: Observer.self)
        defer { _RegistrationSites.leave(site) }
        _observeHopping(object, keyPath: keyPath, options: options, coalescing: delivery.coalescing, route, call: block)
    }

    /// Observes `keyPath` of `object`, delivering each change on the main actor: for view models.
    ///
    /// ```swift
    /// @MainActor final class ProfileViewModel {
    ///     private(set) var title = ""
    ///     lazy var kvoController = KVOController(observer: self)
    ///
    ///     init(profile: Profile) {
    ///         kvoController.observe(profile, keyPath: \.name, options: [.initial, .new], delivery: .mainActor) {
    ///             viewModel, change in
    ///             viewModel.title = change.newValue ?? ""   // main actor: no hop, no warning, no trap
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// A change made on the main thread is delivered synchronously when no main-actor delivery is queued; otherwise it is queued to the main actor with the values captured
    /// then. A controller's main-actor deliveries keep the order of the changes, across its registrations. The observer is only ever
    /// loaded, retained and released on the main actor, so a `@MainActor` observer's deinit runs there.
    ///
    /// > Important: Queued deliveries run only while the main thread runs its main loop. An app does;
    /// > a command-line tool must too: call `dispatchMain()` or `RunLoop.main.run()`, or use an async
    /// > `main`, instead of blocking the main thread (on a semaphore, a join or `sleep`). Deliveries
    /// > that wait more than five seconds are reported once on standard error.
    ///
    /// - Parameters:
    ///   - object: The object to observe; nil does nothing.
    ///   - keyPath: What to observe.
    ///   - options: What each record carries.
    ///   - delivery: `.mainActor`.
    ///   - file: The file named as where the registration was made (in ``KVOController/debugDescription`` and
    ///     ``KVOTrace``): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    ///   - block: Called on the main actor with the observer and each change record.
    /// - Note: `\.address!.city` traps here when `address` is nil (the key path is read to find what it
    ///   depends on); observe `\.address?.city` instead.
    /// - Important: The observer must be main-actor isolated (`@MainActor final class ViewModel`) or
    ///   otherwise `Sendable`: `block` hands it to the main actor from whichever thread changes the
    ///   object. For an observer that is neither, the compiler says "type 'ViewModel' does not conform
    ///   to the 'Sendable' protocol".
    @inlinable
    public func observe<Object: KeyValueObservable, Value: Sendable>(
        _ object: Object?,
        keyPath: KeyPath<Object, Value>,
        options: KVOOptions = [.new],
        delivery: KVOMainActorDelivery,
        file: StaticString = #fileID,
        line: UInt = #line,
        block: @escaping @MainActor (Observer, KVOChange<Value>) -> Void
    ) where Observer: Sendable {
        guard let object else { return }
        let route = DeliveryRoute(delivery, lane: mainActorLane)
        let site = _RegistrationSites.enter(file, line, route.form, observer: Observer.self)
        defer { _RegistrationSites.leave(site) }
        let call: @Sendable (sending Observer, KVOChange<Value>) -> Void = { observer, change in
            MainActor.assumeIsolated { block(observer, change) }
        }
        _observeHopping(object, keyPath: keyPath, options: options, coalescing: delivery.coalescing, route, call: call)
    }

    /// Registers `keyPath` with a callback that runs elsewhere: the route's hop moves each record to where
    /// it runs, where the call passes the registration's gate again and only then loads the observer (so
    /// the observer is never retained or released on the changing thread). With no coalescing, inlined
    /// into the caller, where the types are concrete: the record is then built and delivered with no
    /// generic code; with coalescing, out of line (`observe(_:keyPath:options:coalescing:hop:call:)`).
    @inlinable
    func _observeHopping<Object: KeyValueObservable, Value: Sendable>(
        _ object: Object,
        keyPath: KeyPath<Object, Value>,
        options: KVOOptions,
        coalescing: KVOCoalescing?,
        _ route: DeliveryRoute,
        call: @escaping @Sendable (sending Observer, KVOChange<Value>) -> Void
    ) {
        let hop = route.hop
        guard coalescing == nil else {
            return observe(object, keyPath: keyPath, options: options, coalescing: coalescing, hop: hop, call: call)
        }
        let observer = _observer
        let context = HopContext()
        let info: TypedKVOInfo<Object, Value> = KVODispatcher.shared._makeRegistration(
            object,
            reader: .typed(keyPath),
            options: options,
            owner: self,
            box: _HandlerBox { (_: Object, change: KVOChange<Value>) in
                let note = CascadedDeliveries.willQueue()
                hop {
                    CascadedDeliveries.run(note) {
                        context.info?.deliver {
                            guard let observer = observer.object else { return }
                            call(observer, change)
                        }
                    }
                }
            }
        )
        context.attach(info)
        _register(info, on: object)
    }

    /// Registers `keyPath` with a callback that runs elsewhere, coalescing: records wait in a
    /// `PendingRecords` that one hop empties (see `_observeHopping` for the rest).
    @usableFromInline
    func observe<Object: KeyValueObservable, Value: Sendable>(
        _ object: Object,
        keyPath: KeyPath<Object, Value>,
        options: KVOOptions,
        coalescing: KVOCoalescing?,
        hop: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void,
        call: @escaping @Sendable (sending Observer, KVOChange<Value>) -> Void
    ) {
        let observer = _observer
        let context = HopContext()
        let pending = PendingRecords<Value>()
        let merged = MergedRecords<Value>(options: options)
        // Both values are captured whatever `options` ask, to merge and compare them; each record is cut
        // down to what was asked for when it is delivered. Collections come as whole values.
        let prepare: (KVOInfo) -> Void = { info in
            info.wantsWholeValues = true
            context.attach(info)
        }
        register(object, reader: .typed(keyPath), keyPath: keyPath, options: merged.capturing, prepare: prepare) {
            (change: KVOChange<Value>) in
            guard pending.add(change) else { return }
            let note = CascadedDeliveries.willQueue()
            hop {
                CascadedDeliveries.run(note) {
                    let (prior, change, owed) = pending.take()
                    guard let records = merged.delivered(prior: prior, change: change, owed: owed),
                        let info = context.info
                    else { return }
                    info.deliver {
                        for (index, record) in records.enumerated() {
                            // A prior callback that ended the registration (unobserve, its controller
                            // released) stops the change record that would follow it.
                            if index > 0, info.isCancelled { return }
                            guard let observer = observer.object else { return }
                            call(observer, record)
                        }
                    }
                }
            }
        }
    }
}
