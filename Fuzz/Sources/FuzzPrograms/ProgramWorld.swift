import KVOMediator

// The world programs run in: up to three roots, each with a direct property, a three-link chain
// through optional links (`middle?.leaf?.value`), an array, a set, a property announced by hand and a
// computed property; and observers that receive changes in every callback style.

final class Root: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var value = 0
    @Observed var middle: Middle?
    @Observed var items: [Int] = []
    @Observed var tags: Set<Int> = []
    @Observed(automaticallyNotifies: false) var manual = 0
    /// Computed: re-read on a change of either of its inputs.
    var total: Int { value + items.count }
}

final class Middle: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var value = 0
    @Observed var leaf: Leaf?
}

final class Leaf: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var value = 0
}

/// An observer. Its controller lives in the program's slots beside it, so that either can be
/// released alone.
final class Watcher: KeyValueObserving {
    /// Set when the program lets the watcher go: from then on nothing may call it.
    var released = false

    /// The Cocoa-style callback: `context` is the `RegistrationGroup` of the observe call.
    func observeValue(
        forKeyPath keyPath: AnyKeyPath,
        of object: AnyObject,
        change: KVOChange<Any>,
        context: UnsafeMutableRawPointer?
    ) {
        guard let context else { fatalError("fuzz invariant broken: the context was not passed through") }
        Unmanaged<RegistrationGroup>.fromOpaque(context).takeUnretainedValue().deliver(keyPath: keyPath, to: self)
    }
}

/// The registrations of one `observe(_:keyPaths:…)` call, told apart by `change.keyPath`.
///
/// `@unchecked Sendable`: programs run on one thread; the blocks that reach it are `@Sendable` only
/// because the library's signatures ask for it.
final class RegistrationGroup: @unchecked Sendable {
    private(set) var members: [Registration] = []

    func append(_ registration: Registration) {
        members.append(registration)
    }

    /// Calls the member registered for `keyPath` (the first one not ended, for a repeated key path).
    func deliver(keyPath: AnyKeyPath, to watcher: Watcher?) {
        let candidates = members.filter { $0.path.partial == keyPath }
        guard let member = candidates.first(where: { $0.state != .ended }) ?? candidates.first else {
            fatalError("fuzz invariant broken: a callback for \(keyPath), which this call did not observe")
        }
        member.fire(watcher: watcher)
    }
}
