import FuzzSupport
import KVOMediator

/// Observes a typed key path through a controller, with a block or an action.
struct TypedObserve: RootPathVisitor {
    let controller: KVOController<Watcher>
    let root: Root
    let options: KVOOptions
    let form: Operation.Form
    let registration: Registration

    func visit<Value>(_ keyPath: KeyPath<Root, Value>) {
        let registration = registration
        if form == .typedAction {
            controller.observe(
                root,
                keyPath: keyPath,
                options: options,
                action: { watcher in
                    { (_: KVOChange<Value>) in registration.fire(watcher: watcher) }
                }
            )
        } else {
            controller.observe(root, keyPath: keyPath, options: options) { watcher, _, _ in
                registration.fire(watcher: watcher)
            }
        }
    }
}

/// Observes a typed key path through a token (`object.observe(_:options:changeHandler:)`).
struct TokenObserve: RootPathVisitor {
    let root: Root
    let options: KVOOptions
    let registration: Registration

    func visit<Value>(_ keyPath: KeyPath<Root, Value>) -> KVOObservation {
        let registration = registration
        do {
            return try root.observe(keyPath, options: options) { _, _ in registration.fire(watcher: nil) }
        } catch {
            fatalError("fuzz invariant broken: observing \(registration.path) with a token threw \(error)")
        }
    }
}
