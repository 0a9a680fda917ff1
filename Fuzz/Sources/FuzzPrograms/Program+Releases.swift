import FuzzSupport
import KVOMediator

extension Program {
    /// Lets controller `slot` go: its deinit unobserves everything, and nothing else may keep it past
    /// the current operation. (Its registrations end when it deinitialises, which `Registration`
    /// sees through its weak reference: an observe call in progress keeps it until the call returns.)
    func releaseController(_ slot: Int) {
        guard let controller = controllers[slot] else { return }
        released.watch(controller, "a released controller (slot \(slot))")
        controllers[slot] = nil
    }

    /// Lets observer `slot` go: controllers hold it weakly, so it must deinitialise, and never be called again.
    func releaseWatcher(_ slot: Int) {
        guard let watcher = watchers[slot] else { return }
        watcher.released = true
        released.watch(watcher, "a released observer (slot \(slot))")
        watchers[slot] = nil
    }

    /// Lets token `slot` go: its deinit ends its registration, unless the bag holds it too.
    func releaseToken(_ slot: Int) {
        guard let token = tokens[slot] else { return }
        let mine = registrations.filter { $0.token === token }
        if !mine.contains(where: \.isInBag) {
            for registration in mine { registration.state = .ended }
            released.watch(token, "a released token (slot \(slot))")
        }
        tokens[slot] = nil
    }

    /// Runs the armed action, if any, inside the callback of `registration`.
    func runArmedAction(inCallbackOf registration: Registration) {
        guard let action = armed else { return }
        armed = nil
        actedInCallback = true
        // The library reached this registration, and every one before it in the call.
        if let index = notReached.firstIndex(where: { $0 === registration }) { notReached.removeFirst(index + 1) }
        defer {
            // What the action did to the call's later key paths cannot be told: the library registers
            // them only after this callback.
            for later in notReached {
                later.state = .unsure
                later.isCounted = false
            }
        }
        switch action {
        case .releaseController(let slot): releaseController(slot)
        case .releaseWatcher(let slot): releaseWatcher(slot)
        case .releaseToken(let slot): releaseToken(slot)
        case .invalidateToken(let slot): invalidateToken(slot)
        case .unobserveAll(let slot): unobserveAll(controller: slot)
        case .unobserveItself: unobserve(registration)
        case .setValue(let slot, let value):
            guard let root = roots[slot] else { return }
            set(\.value, of: root, to: value, announcing: .value)
        case .invalidateBag: changeBag(.invalidateAll, token: 0)
        }
    }

    /// Ends `registration` from inside its own callback: through its controller, or its token.
    private func unobserve(_ registration: Registration) {
        guard let root = registration.root else { return }
        switch registration.owner {
        case .controller(let slot):
            guard let controller = registration.controller, controllers[slot] === controller else { return }
            if registration.isStringForm, let name = registration.path.string {
                controller.unobserve(root, keyPath: name)
                endRegistrations(of: controller, root, registration.path) {
                    $0.isStringForm || registration.path.isDirect
                }
            } else {
                controller.unobserve(root, keyPath: registration.path.partial)
                endRegistrations(of: controller, root, registration.path) {
                    !$0.isStringForm || registration.path.isDirect
                }
            }
        case .token:
            // (During its `.initial` callback the token does not exist yet.)
            guard let token = registration.token else { return }
            token.invalidate()
            registration.state = .ended
        }
    }
}
