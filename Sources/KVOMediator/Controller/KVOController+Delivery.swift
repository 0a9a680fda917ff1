import Foundation

/// Delivery on the main actor, named at the call site: `delivery: .mainActor`.
///
/// Trailing-closure syntax drops a closure's label, so delivery is never chosen by a closure's shape:
/// a form without `delivery:` always calls back synchronously on the thread that made the change.
public struct KVOMainActorDelivery: Sendable {
    /// Calls back on the main actor.
    public static var mainActor: KVOMainActorDelivery { KVOMainActorDelivery() }
}

/// Delivery on a dispatch queue, named at the call site: `delivery: .queue(renderQueue)`.
public struct KVOQueueDelivery: Sendable {
    /// Where the callbacks run.
    public let queue: DispatchQueue

    /// Calls back on `queue`, in the order of the changes.
    public static func queue(_ queue: DispatchQueue) -> KVOQueueDelivery {
        KVOQueueDelivery(queue: queue)
    }
}

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
    ///   - block: Called with the observer and each change record.
    /// - Note: `\.address!.city` traps here when `address` is nil (the key path is read to find what it
    ///   depends on); observe `\.address?.city` instead.
    public func observe<Object: KeyValueObservable, Value: Sendable>(
        _ object: Object?,
        keyPath: KeyPath<Object, Value>,
        options: KVOOptions = [.new],
        delivery: KVOQueueDelivery,
        block: @escaping @Sendable (Observer, KVOChange<Value>) -> Void
    ) {
        guard let object else { return }
        let lane = DeliveryLane.lane(to: delivery.queue)
        let observer = _observer
        let hop = HopContext()
        // The observer is loaded where the block runs, not on the changing thread.
        register(
            object,
            reader: .typed(keyPath),
            keyPath: keyPath,
            options: options,
            prepare: hop.attach,
            hopping: {
                (change: KVOChange<Value>) in
                lane.queue.async {
                    hop.info?.deliver {
                        guard let observer = observer.object else { return }
                        block(observer, change)
                    }
                }
            }
        )
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
    ///   - block: Called on the main actor with the observer and each change record.
    /// - Note: `\.address!.city` traps here when `address` is nil (the key path is read to find what it
    ///   depends on); observe `\.address?.city` instead.
    public func observe<Object: KeyValueObservable, Value: Sendable>(
        _ object: Object?,
        keyPath: KeyPath<Object, Value>,
        options: KVOOptions = [.new],
        delivery: KVOMainActorDelivery,
        block: @escaping @MainActor (Observer, KVOChange<Value>) -> Void
    ) {
        guard let object else { return }
        let observer = _observer
        let lane = mainActorLane
        let hop = HopContext()
        // The observer is loaded where the block runs, on the main actor, never on the changing thread.
        register(
            object,
            reader: .typed(keyPath),
            keyPath: keyPath,
            options: options,
            prepare: hop.attach,
            hopping: {
                (change: KVOChange<Value>) in
                lane.deliver {
                    hop.info?.deliver {
                        guard let observer = observer.object else { return }
                        block(observer, change)
                    }
                }
            }
        )
    }
}

/// A weak reference that can cross threads: loading it is atomic, and only the loader uses the object.
///
/// Loading gives nil once the object has started deinitialising, as a `weak` load does. Where objects
/// are native Swift objects only (not on Apple platforms, where an observer may be an Objective-C
/// object), it is not a `weak` reference but an unowned one, which keeps the object's memory (not the
/// object) allocated, and a load tries to retain the object in place. A `weak` reference would give
/// the object a side table, after which every retain and release of it, ours included, takes the
/// runtime's slow path: on a notification, that and the weak load itself cost more than the rest of
/// the delivery together.
@usableFromInline
final class WeakReference<Object: AnyObject>: @unchecked Sendable {  // loads are atomic; the rest is immutable
    /// Pinned for as long as this reference exists (see `ObjectPin`).
    @usableFromInline
    let _pin: ObjectPin<Object>

    @usableFromInline
    init(_ object: Object) {
        self._pin = ObjectPin(object)
    }

    deinit {
        _pin.unpin()
    }

    /// The object, retained, unless it has started deinitialising.
    @inlinable
    var object: Object? { _pin.load() }
}

/// What a hopping delivery needs: its registration, held weakly, to pass the gate again where it runs.
final class HopContext: @unchecked Sendable {  // `registration` is guarded by `lock`
    private let lock = Lock()
    private weak var registration: KVOInfo?

    var info: KVOInfo? {
        lock.withLock { registration }
    }

    func attach(_ info: KVOInfo) {
        lock.withLock { registration = info }
    }
}
