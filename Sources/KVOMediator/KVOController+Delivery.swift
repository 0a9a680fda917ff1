import Foundation
import Synchronization

extension KVOController {
    /// Observes `keyPath` of `object`, delivering each change on `queue` instead of the mutating thread.
    ///
    /// ```swift
    /// kvoController.observe(download, keyPath: \.progress, queue: renderQueue) { view, change in
    ///     view.draw(progress: change.newValue!)
    /// }
    /// ```
    ///
    /// Values are captured when the change happens, so a delivery never reads a newer value, and
    /// changes arrive in order even on a concurrent queue (each registration has its own serial queue
    /// targeting `queue`). The object is not passed: it may be changing on another thread meanwhile.
    /// After `unobserve` returns, no queued delivery of that registration starts.
    ///
    /// - Parameters:
    ///   - object: The object to observe; nil does nothing.
    ///   - keyPath: What to observe.
    ///   - options: What each record carries; `.initial` is queued before this returns.
    ///   - queue: Where `block` runs.
    ///   - block: Called with the observer and each change record.
    public func observe<Object: KeyValueObservable, Value: Sendable>(
        _ object: Object?,
        keyPath: KeyPath<Object, Value>,
        options: KVOOptions = [.new],
        queue: DispatchQueue,
        block: @escaping @Sendable (Observer, KVOChange<Value>) -> Void
    ) {
        guard let object else { return }
        let serial = DispatchQueue(label: "KVOMediator.delivery", target: queue)
        let observer = _observer
        let hop = HopContext()
        register(object, reader: .typed(keyPath), keyPath: keyPath, options: options, prepare: hop.attach) {
            _,
            _,
            change in
            serial.async {
                hop.info?.deliver {
                    guard let observer = observer.object else { return }
                    block(observer, change)
                }
            }
        }
    }

    /// Observes `keyPath` of `object`, delivering each change on the main actor: for view models.
    ///
    /// ```swift
    /// @MainActor final class ProfileViewModel {
    ///     private(set) var title = ""
    ///     lazy var kvoController = KVOController(observer: self)
    ///
    ///     init(profile: Profile) {
    ///         kvoController.observe(profile, keyPath: \.name, options: [.initial, .new]) { viewModel, change in
    ///             viewModel.title = change.newValue ?? ""   // main actor: no hop, no warning, no trap
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// A change made on the main thread is delivered synchronously when nothing is queued for this
    /// registration; a change made elsewhere is queued to the main actor with the values captured then.
    /// Order is preserved per registration. The observer is only ever touched on the main actor.
    ///
    /// - Parameters:
    ///   - object: The object to observe; nil does nothing.
    ///   - keyPath: What to observe.
    ///   - options: What each record carries.
    ///   - block: Called on the main actor with the observer and each change record.
    public func observe<Object: KeyValueObservable, Value: Sendable>(
        _ object: Object?,
        keyPath: KeyPath<Object, Value>,
        options: KVOOptions = [.new],
        onMainActor block: @escaping @MainActor (Observer, KVOChange<Value>) -> Void
    ) {
        guard let object else { return }
        let observer = _observer
        let hop = HopContext()
        register(object, reader: .typed(keyPath), keyPath: keyPath, options: options, prepare: hop.attach) {
            _,
            _,
            change in
            let run: @Sendable () -> Void = {
                MainActor.assumeIsolated {
                    hop.info?.deliver {
                        guard let observer = observer.object else { return }
                        block(observer, change)
                    }
                }
            }
            if isOnMainActor(), hop.queued.load(ordering: .acquiring) == 0 {
                run()
            } else {
                hop.queued.wrappingAdd(1, ordering: .acquiringAndReleasing)
                DispatchQueue.main.async {
                    run()
                    hop.queued.wrappingSubtract(1, ordering: .acquiringAndReleasing)
                }
            }
        }
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

/// What a hopping delivery needs: its registration, held weakly (to pass the gate again where it runs), and a count
/// of deliveries queued but not yet run (to keep main-actor deliveries in order).
final class HopContext: @unchecked Sendable {  // `registration` is guarded by `lock`
    private let lock = Lock()
    private weak var registration: KVOInfo?
    let queued = Atomic<Int>(0)

    var info: KVOInfo? {
        lock.withLock { registration }
    }

    func attach(_ info: KVOInfo) {
        lock.withLock { registration = info }
    }
}

/// Marks the main dispatch queue, which runs the main actor's jobs.
private let mainQueueKey: DispatchSpecificKey<UInt8> = {
    let key = DispatchSpecificKey<UInt8>()
    DispatchQueue.main.setSpecific(key: key, value: 1)
    return key
}()

/// Whether the caller runs on the main actor: on the main thread, or in a job of the main queue (where
/// a test runner may run main-actor work on another thread).
func isOnMainActor() -> Bool {
    Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) != nil
}
