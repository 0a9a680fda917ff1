import FuzzSupport
import KVOMediator

/// The state of one `KeyPathCase` while it runs: the world, the controller and what each path got.
final class KeyPathRun {
    let input: KeyPathCase
    let factory: WorldFactory
    let company: Company
    let observer = PathObserver()
    var controller: KVOController<PathObserver>?
    /// The log of the registration each accepted path reached (the first one, for a repeated path).
    var registered: [String: DeliveryLog] = [:]
    /// Records per change of what a path names: the prior one and the one after.
    let perChange: Int

    init(_ input: KeyPathCase, lifetimes: LifetimeWatch) {
        self.input = input
        factory = WorldFactory(lifetimes: lifetimes, campuses: input.campuses)
        company = input.makeCompany(factory)
        let controller = KVOController(observer: observer, retainsObserved: ByteReader.flag(input.config, 5))
        controller.errorHandler = { error in fatalError("a throwing observe reported to errorHandler: \(error)") }
        lifetimes.watch(controller, "the KVOController")
        lifetimes.watch(observer, "the observer")
        self.controller = controller
        perChange = input.options.contains(.prior) ? 2 : 1
    }

    /// Validates, observes, reads and changes `path`, checking each step against `KeyPathResolution`.
    func observe(_ path: String) {
        guard let controller else { return }
        let expected = KeyPathResolution(path, from: company)
        let countBefore = controller.observationCount
        var validationError: KVOError?
        do { try company.validateKeyPath(path) } catch { validationError = error }
        let log = DeliveryLog()
        var observeError: (any Error)?
        do {
            try controller.observe(company, keyPath: path, options: input.options) { _, _, change in log.record(change)
            }
        } catch {
            observeError = error
        }
        let value = company[kvoKeyPath: path]
        switch expected {
        case .rejected(let typeName):
            guard let validationError else {
                fatalError(
                    "fuzz invariant broken: validateKeyPath accepted \(path.debugDescription), invalid at \(typeName)"
                )
            }
            checkError(validationError, path: path, typeName: typeName)
            invariant(
                (observeError as? KVOError) == validationError,
                "observe threw \(String(describing: observeError)), validateKeyPath \(validationError)"
            )
            invariant(controller.observationCount == countBefore, "a rejected key path left a registration")
            invariant(log.count == 0, "a rejected key path delivered")
            invariant(value == nil, "obj[kvoKeyPath: \(path.debugDescription)] of a rejected path is \(value!)")
        case .accepted(let owner, let last, _):
            invariant(validationError == nil, "validateKeyPath rejected \(path.debugDescription): \(validationError!)")
            invariant(observeError == nil, "observe threw for \(path.debugDescription): \(observeError!)")
            invariant(
                sameValue(value, owner.flatMap(last.read)),
                "obj[kvoKeyPath: \(path.debugDescription)] is \(String(describing: value))"
            )
            if let first = registered[path] {
                invariant(log.count == 0, "observing \(path.debugDescription) again delivered (a second .initial?)")
                invariant(controller.observationCount == countBefore, "observing a path again registered it again")
                changeWhatItNames(path, log: first)
            } else {
                let initial = input.options.contains(.initial) ? 1 : 0
                invariant(log.count == initial, "\(log.count) records on observing \(path.debugDescription)")
                if initial == 1 { checkInitialRecord(log.lastChange, of: path, value: value) }
                invariant(controller.observationCount == countBefore + 1, "an accepted path registered no observation")
                registered[path] = log
                changeWhatItNames(path, log: log)
            }
        }
    }

    /// Fills the nil links of `path` one by one, then changes its last property: each change must be
    /// delivered exactly once (twice with `.prior`), with the value now at the path.
    func changeWhatItNames(_ path: String, log: DeliveryLog) {
        for _ in 0..<8 {
            guard case .accepted(let owner, let last, let nilLink) = KeyPathResolution(path, from: company) else {
                return
            }
            let countBefore = log.count
            let oldValue = company[kvoKeyPath: path]
            if let nilLink {
                nilLink.spec.change(nilLink.owner, factory)
            } else if let owner {
                last.change(owner, factory)
            } else {
                return
            }
            invariant(
                log.count == countBefore + perChange,
                "changing \(path.debugDescription) delivered \(log.count - countBefore) records, not \(perChange)"
            )
            checkRecord(log.lastChange, of: path, old: oldValue)
            if nilLink == nil { return }
        }
    }

    /// The record after a change carries the value now at the path (with `.new`) and the one before (`.old`).
    func checkRecord(_ change: KVOChange<Any>?, of path: String, old: Any?) {
        guard let change else { fatalError("fuzz invariant broken: no record for \(path.debugDescription)") }
        let now = company[kvoKeyPath: path]
        if input.options.contains(.new) {
            invariant(sameValue(change.newValue, now), "new value \(String(describing: change.newValue)) of \(path)")
        } else {
            invariant(change.newValue == nil, "a new value without .new")
        }
        if input.options.contains(.old) {
            invariant(sameValue(change.oldValue, old), "old value \(String(describing: change.oldValue)) of \(path)")
        } else {
            invariant(change.oldValue == nil, "an old value without .old")
        }
        invariant(change.keyPathName == path, "keyPathName \(change.keyPathName.debugDescription) for \(path)")
    }

    /// The `.initial` record carries the value at the path (with `.new`), never an old value.
    func checkInitialRecord(_ change: KVOChange<Any>?, of path: String, value: Any?) {
        guard let change else { fatalError("fuzz invariant broken: no .initial record for \(path.debugDescription)") }
        let expected = input.options.contains(.new) ? value : nil
        invariant(
            sameValue(change.newValue, expected),
            "initial value \(String(describing: change.newValue)) of \(path)"
        )
        invariant(change.oldValue == nil, "an old value on the .initial record of \(path.debugDescription)")
        invariant(change.kind == .setting, "an .initial record of kind \(change.kind)")
    }

    /// A rejection's error: says it is KVOMediator's, gives the root type as its `typeName`, names the type
    /// where the path went wrong in its message, stays short.
    func checkError(_ error: KVOError, path: String, typeName: String) {
        invariant(error.message.hasPrefix("KVOMediator: "), "error message \(error.message.debugDescription)")
        invariant(error.message.count < 2_000, "an error message of \(error.message.count) characters")
        let root = String(describing: type(of: company))
        invariant(
            error.typeName == root,
            "error's typeName is \(error.typeName), expected the root \(root): \(error.message)"
        )
        invariant(error.message.contains(typeName), "error message does not name \(typeName): \(error.message)")
        invariant(error.keyPath == path, "error keyPath \(error.keyPath.debugDescription) for \(path.debugDescription)")
    }

    /// Stops observing as the input says; after that no change of any path may be delivered.
    func end() {
        let counts = registered.mapValues(\.count)
        switch input.ending {
        case .unobservePaths: for path in registered.keys { controller?.unobserve(company, keyPath: path) }
        case .unobserveObject: controller?.unobserve(company)
        case .unobserveAll: controller?.unobserveAll()
        case .releaseController: controller = nil
        }
        if let controller {
            invariant(
                controller.observationCount == 0,
                "\(controller.observationCount) registrations after unobserving"
            )
        }
        for path in registered.keys {
            guard case .accepted(let owner, let last, let nilLink) = KeyPathResolution(path, from: company) else {
                continue
            }
            if let nilLink {
                nilLink.spec.change(nilLink.owner, factory)
            } else if let owner {
                last.change(owner, factory)
            }
        }
        for (path, log) in registered {
            invariant(log.count == counts[path], "\(path.debugDescription) delivered after it was unobserved")
        }
    }
}
