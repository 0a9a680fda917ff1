import Foundation
import KVOMediator

/// Ending registrations in a threaded run. Unobserving, invalidating and dropping a token or a
/// controller are ends that return only once no callback of theirs can start; dropping an observer
/// is not (a callback running on another thread may hold it): its registrations are only required
/// to have received what was written before, and never to call it once it deinitialises.
extension ThreadProgram {
    mutating func end() {
        let slots = observers.indices.filter { !entries[$0].isEmpty }
        guard let slot = random.element(of: slots), let observer = observers[slot], observer.controller != nil else {
            return endToken(in: random.below(tokens.count), dropping: random.chance(50))
        }
        switch random.below(10) {
        case 0, 1: endToken(in: random.below(tokens.count), dropping: random.chance(50))
        case 2: endStrictly(slot, .all) { observer.controller?.unobserveAll() }
        case 3:
            let entry = random.element(of: entries[slot])!
            let object = world.target(entry.key, index: entry.object).object
            let onLinkB = entry.key.isOnLinkB
            endStrictly(slot, .object(entry.object, onLinkB: onLinkB)) {
                observer.controller?.unobserve(object)
            }
        case 4:
            // The controller goes with the observer's reference to it: nothing here may hold it.
            endStrictly(slot, .all) { observer.controller = nil }
        default:
            let entry = random.element(of: entries[slot])!
            let object = world.target(entry.key, index: entry.object).object
            let byName = entry.key.stringPath != nil && (owns(entry.key) || random.chance(50)) && random.chance(50)
            endStrictly(slot, .key(entry.key, object: entry.object)) {
                guard let controller = observer.controller else { return }
                if byName, let path = entry.key.stringPath {
                    if let root = object as? ModelRoot { controller.unobserve(root, keyPath: path) }
                    if let b = object as? ModelLinkB { controller.unobserve(b, keyPath: path) }
                } else {
                    entry.key.use(on: object, Unobserving(controller: controller))
                }
            }
        }
    }

    /// Ends the registrations of the controller in `slot` that match with `end`, measuring their
    /// window. `end` must not keep the controller alive past its return when it drops it.
    mutating func endStrictly(_ slot: Int, _ which: EntryFilter, _ end: () -> Void) {
        let ending = entries[slot].filter(which.matches)
        for entry in ending { entry.tally.willEnd() }
        end()
        for entry in ending { entry.tally.didEnd() }
        entries[slot].removeAll(where: which.matches)
    }

    /// Invalidates or drops a token (holding no reference to it, so that dropping it ends it).
    mutating func endToken(in slot: Int, dropping: Bool) {
        guard let tally = tokens[slot]?.tally else { return }
        tally.willEnd()
        if !dropping { tokens[slot]?.token.invalidate() }
        tokens[slot] = nil
        tally.didEnd()
    }

    mutating func churn() {
        let slot = random.below(observers.count)
        switch random.below(3) {
        case 0:
            dropObserver(in: slot)
            let observer = ModelObserver(id: unique(), sink: world.journal)
            world.journal.track(observer, as: "observer \(observer.id) of thread \(index)")
            observer.controller = newController(for: observer, retains: random.chance(30))
            observers[slot] = observer
        case 1: dropObserver(in: slot)
        default:
            guard let observer = observers[slot] else { return }
            let controller = newController(for: observer, retains: random.chance(30))
            endStrictly(slot, .all) { observer.controller = controller }
        }
    }

    private func newController(for observer: ModelObserver, retains: Bool) -> KVOController<ModelObserver> {
        let controller = KVOController(observer: observer, retainsObserved: retains)
        let journal = world.journal
        controller.errorHandler = { error in
            // (Controllers are let go, and key paths observed again, on purpose: see `LibraryWorld`.)
            guard error.reason != .controllerReleased, error.reason != .alreadyObserved else { return }
            journal.problem("thread error handler: \(error.message)")
        }
        journal.track(controller, as: "a controller of thread \(index)")
        return controller
    }

    /// Drops an observer (and so its controller): its registrations end when it deinitialises.
    mutating func dropObserver(in slot: Int) {
        for entry in entries[slot] { entry.tally.willEnd() }
        entries[slot] = []
        observers[slot] = nil
    }

    /// Ends everything this thread made: each controller's registrations (strictly), its observers, its tokens.
    mutating func teardown() {
        for slot in observers.indices {
            if let controller = observers[slot]?.controller {
                endStrictly(slot, .all) { controller.unobserveAll() }
            }
            dropObserver(in: slot)
        }
        for slot in tokens.indices { endToken(in: slot, dropping: true) }
    }
}

/// Which registrations of a controller an end ends.
enum EntryFilter {
    case all
    case object(Int, onLinkB: Bool)
    case key(ThreadedKey, object: Int)

    func matches(_ entry: ThreadedEntry) -> Bool {
        switch self {
        case .all: true
        case .object(let object, let onLinkB): entry.object == object && entry.key.isOnLinkB == onLinkB
        case .key(let key, let object): entry.object == object && entry.key == key
        }
    }
}

/// How a threaded run's registration is made.
enum ThreadedForm: CustomStringConvertible {
    case block
    case action
    case keyPathsBlock
    case delegate(context: Int)
    case string(String)
    case token

    var description: String {
        switch self {
        case .block: "block"
        case .action: "action"
        case .keyPathsBlock: "keyPaths+block"
        case .delegate: "keyPaths+context"
        case .string(let path): "\"\(path)\""
        case .token: "token"
        }
    }
}

/// Makes one registration of a threaded run, its callback feeding the tally.
struct ThreadedObservation: TypedKeyPathUser {
    let form: ThreadedForm
    let controller: KVOController<ModelObserver>?
    let options: KVOOptions
    let tally: ThreadedTally
    let journal: ThreadedJournal
    let made: MadeToken?

    func use<Object: KeyValueObservable & SendableMetatype, Value: ModelValueConvertible & Sendable>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value>
    ) {
        let (tally, journal, options) = (tally, journal, options)
        @Sendable func typed(_ observer: ModelObserver?, _ change: KVOChange<Value>) {
            tally.receive(change.newValue?.modelValue, isPrior: change.isPrior, observer: observer, journal: journal)
        }
        @Sendable func untyped(_ observer: ModelObserver?, _ change: KVOChange<Any>) {
            let value = change.newValue.flatMap { ModelValue(any: $0) }
            tally.receive(value, isPrior: change.isPrior, observer: observer, journal: journal)
        }
        switch form {
        case .block: controller?.observe(object, keyPath: keyPath, options: options) { typed($0, $2) }
        case .action:
            controller?.observe(object, keyPath: keyPath, options: options) { observer in { typed(observer, $0) } }
        case .keyPathsBlock: controller?.observe(object, keyPaths: [keyPath], options: options) { untyped($0, $2) }
        case .delegate(let context):
            controller?.observe(
                object,
                keyPaths: [keyPath],
                options: options,
                context: UnsafeMutableRawPointer(bitPattern: context)
            )
        case .string(let path):
            do {
                try controller?.observe(object, keyPath: path, options: options) { untyped($0, $2) }
            } catch {
                journal.problem("observing \"\(path)\" threw \(error)")
            }
        case .token:
            do {
                made?.token = try object.observe(keyPath, options: options) { typed(nil, $1) }
            } catch {
                journal.problem("a token of \(keyPath) threw \(error)")
            }
        }
    }
}

/// Unobserves a typed key path.
private struct Unobserving: TypedKeyPathUser {
    let controller: KVOController<ModelObserver>

    func use<Object: KeyValueObservable & SendableMetatype, Value: ModelValueConvertible & Sendable>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value>
    ) {
        controller.unobserve(object, keyPath: keyPath)
    }
}
