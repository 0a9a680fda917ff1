/// Identifies an observable slot of an object: by key path, or by property name for string key paths.
enum SlotKey: Hashable {
    /// The `@Observed` wrapper's key path (rooted at the declaring class) or a manual key path.
    case keyPath(AnyKeyPath)
    /// An `@Observed` property's name, as a string key path names it; bound to its key path on first use.
    case name(String)
    /// Not a slot: the root object's lifetime, for a registration that reads none of the root's slots
    /// (so that it still ends when the root object deinitialises).
    case lifetime
}

/// One observable read: which object's registrar, which slot.
struct Access {
    let registrar: KVORegistrar
    let slot: SlotKey
    /// The wrapper's storage key path, kept so that a slot can be named (`\Person._name` → `name`).
    let storage: AnyKeyPath?
}

/// Collects the observable reads made while a key path is evaluated.
///
/// With a registration attached, each new read subscribes it at once, before the getter returns its
/// value: a change that lands after the read is then always announced, never lost in between.
final class AccessTracker {
    private(set) var accesses: [Access] = []
    private let registration: KVOInfo?

    init(subscribing registration: KVOInfo?) {
        self.registration = registration
    }

    func record(_ registrar: KVORegistrar, slot: SlotKey, storage: AnyKeyPath?) {
        for access in accesses where access.registrar === registrar && access.slot == slot {
            return
        }
        let access = Access(registrar: registrar, slot: slot, storage: storage)
        accesses.append(access)
        registration?.subscribe(access)
    }

    /// Evaluates `body` with this tracker installed on the current thread, restoring the previous one after.
    func run<Result>(_ body: () throws -> Result) rethrows -> Result {
        let context = ThreadContext.current
        let previous = context.tracker
        context.tracker = self
        defer { context.tracker = previous }
        return try body()
    }
}

extension AccessTracker {
    /// The observable reads that evaluating `keyPath` on `object` makes, with nothing subscribed.
    static func probe<Root>(_ keyPath: PartialKeyPath<Root>, on object: Root) -> [Access] {
        let tracker = AccessTracker(subscribing: nil)
        _ = tracker.run { object[keyPath: keyPath] }
        return tracker.accesses
    }
}
