import FuzzSupport
import KVOMediator

extension Program {
    /// Observes through controller `slot` in one of its forms, predicting what the library does first.
    func observe(
        controller slot: Int,
        root rootSlot: Int,
        form: Operation.Form,
        _ first: ObservedPath,
        _ second: ObservedPath,
        options: KVOOptions
    ) {
        guard let controller = controllers[slot], let root = roots[rootSlot] else { return }
        let observerGone = controller.observer == nil
        var thrown: (any Error)?
        var attempts = 1
        switch form {
        case .typedBlock, .typedAction:
            let registration = expect(slot, root, first, options, string: false)
            first.visit(
                TypedObserve(
                    controller: controller,
                    root: root,
                    options: options,
                    form: form,
                    registration: registration
                )
            )
        case .string:
            guard let name = first.string else { return }
            let registration = expect(slot, root, first, options, string: true)
            do {
                try controller.observe(root, keyPath: name, options: options) { watcher, _, _ in
                    registration.fire(watcher: watcher)
                }
            } catch {
                thrown = error
            }
        case .keyPathsBlock, .keyPathsContext:
            let group = RegistrationGroup()
            groups.append(group)
            for path in [first, second] { group.append(expect(slot, root, path, options, string: false)) }
            attempts = 2
            notReached = group.members
            defer { notReached = [] }
            if form == .keyPathsBlock {
                controller.observe(root, keyPaths: [first.partial, second.partial], options: options) {
                    watcher,
                    _,
                    change in
                    group.deliver(keyPath: change.keyPath, to: watcher)
                }
            } else {
                let context = Unmanaged.passUnretained(group).toOpaque()
                controller.observe(root, keyPaths: [first.partial, second.partial], options: options, context: context)
            }
        case .stringThenTyped:
            observe(controller: slot, root: rootSlot, form: .string, first, second, options: options)
            observe(controller: slot, root: rootSlot, form: .typedBlock, second, first, options: options)
            return
        }
        let errors = reportedErrors + (thrown as? KVOError).map { [$0] }.orEmpty
        invariant(thrown == nil || thrown is KVOError, "observe threw \(thrown!), not a KVOError")
        if observerGone {
            invariant(errors.count == attempts, "\(errors.count) errors for \(attempts) key paths, the observer gone")
            invariant(errors.allSatisfy { $0.reason == .observerGone }, "errors \(errors), expected observerGone")
        } else if actedInCallback {
            // An `.initial` callback may have let the observer go before a later key path of the call.
            invariant(errors.allSatisfy { $0.reason == .observerGone }, "observe reported \(errors)")
        } else {
            invariant(errors.isEmpty, "observe reported \(errors)")
        }
        reportedErrors = []
    }

    /// Makes the record of one registration, deciding what the library must do with it: register it,
    /// ignore it (already observed through this controller, or the observer is gone), or either.
    func expect(_ slot: Int, _ root: Root, _ path: ObservedPath, _ options: KVOOptions, string: Bool) -> Registration {
        let controller = controllers[slot]
        let existing = registrations.filter {
            $0.controller === controller && $0.controller != nil && $0.root === root && $0.path == path
                && $0.state != .ended
        }
        let state: Registration.State
        if controller?.observer == nil {
            state = .ended
        } else if existing.contains(where: { $0.state == .registered && ($0.isStringForm == string || path.isDirect) })
        {
            state = .ended
        } else {
            state = existing.isEmpty ? .registered : .unsure
        }
        let registration = Registration(
            program: self,
            owner: .controller(slot: slot),
            path: path,
            options: options,
            isStringForm: string,
            root: root,
            state: state
        )
        registration.controller = controller
        registration.watcher = controller?.observer
        if state == .registered, options.contains(.initial) { registration.expected = 1 }
        registrations.append(registration)
        return registration
    }

    /// Observes through a token in slot `slot`; the token it replaces is released after.
    func observeToken(_ slot: Int, root rootSlot: Int, _ path: ObservedPath, options: KVOOptions) {
        guard let root = roots[rootSlot] else { return }
        let registration = Registration(
            program: self,
            owner: .token(slot: slot),
            path: path,
            options: options,
            isStringForm: false,
            root: root,
            state: .registered
        )
        if options.contains(.initial) { registration.expected = 1 }
        registrations.append(registration)
        registration.isStarting = true
        let token = path.visit(TokenObserve(root: root, options: options, registration: registration))
        registration.isStarting = false
        lifetimes.watch(token, "a token")
        registration.token = token
        releaseToken(slot)
        tokens[slot] = token
    }

    func unobserveTyped(controller slot: Int, root rootSlot: Int, _ path: ObservedPath) {
        guard let controller = controllers[slot], let root = roots[rootSlot] else { return }
        controller.unobserve(root, keyPath: path.partial)
        endRegistrations(of: controller, root, path, ending: { !$0.isStringForm || path.isDirect })
    }

    func unobserveString(controller slot: Int, root rootSlot: Int, _ path: ObservedPath) {
        guard let controller = controllers[slot], let root = roots[rootSlot], let name = path.string else { return }
        controller.unobserve(root, keyPath: name)
        endRegistrations(of: controller, root, path, ending: { $0.isStringForm || path.isDirect })
    }

    /// Ends the registrations of `path` that an unobserve surely removed; those of the other form of a
    /// chain may or may not have been (the forms meet only when the library can name the chain).
    func endRegistrations(
        of controller: KVOController<Watcher>,
        _ root: Root,
        _ path: ObservedPath,
        ending: (Registration) -> Bool
    ) {
        for registration in registrations
        where registration.controller === controller && registration.root === root && registration.path == path
            && registration.state != .ended
        {
            registration.state = ending(registration) ? .ended : .unsure
            if registration.state == .unsure { registration.isCounted = false }
        }
    }

    func unobserveObject(controller slot: Int, root rootSlot: Int) {
        guard let controller = controllers[slot], let root = roots[rootSlot] else { return }
        controller.unobserve(root)
        for registration in registrations where registration.controller === controller && registration.root === root {
            registration.state = .ended
        }
    }

    func unobserveAll(controller slot: Int) {
        guard let controller = controllers[slot] else { return }
        controller.unobserveAll()
        endAll(of: controller)
    }

    func endAll(of controller: KVOController<Watcher>) {
        for registration in registrations where registration.controller === controller {
            registration.state = .ended
        }
    }

    func invalidateToken(_ slot: Int) {
        guard let token = tokens[slot] else { return }
        token.invalidate()
        for registration in registrations where registration.token === token {
            registration.state = .ended
        }
    }
}

extension Optional where Wrapped: RangeReplaceableCollection {
    /// The collection, or an empty one.
    var orEmpty: Wrapped { self ?? Wrapped() }
}
