import FuzzSupport
import KVOMediator

/// One input of `FuzzPrograms`: a world of roots, observers, controllers and tokens, and the
/// operations run on it, checked after each step.
///
/// Byte 0 sets up the world (bit 0: the second controller retains what it observes); then each
/// operation takes an opcode and its operands (`Operation`), up to `maxOperations`.
///
/// `@unchecked Sendable`: a program runs on one thread; the library's blocks are `@Sendable`, so the
/// ones that reach back into the program capture it as such.
final class Program: @unchecked Sendable {
    static let maxOperations = 64

    var roots: [Root?] = Array(repeating: nil, count: Operation.roots)
    var watchers: [Watcher?] = Array(repeating: nil, count: Operation.observers)
    var controllers: [KVOController<Watcher>?] = Array(repeating: nil, count: Operation.observers)
    var tokens: [KVOObservation?] = Array(repeating: nil, count: Operation.tokens)
    /// The one bag, and how many tokens it should hold.
    var bag: KVOObservationBag?
    var bagCount = 0
    var registrations: [Registration] = []
    /// Keeps each keyPaths call's group alive: its address is the context the library passes back.
    var groups: [RegistrationGroup] = []
    /// What the next callback does.
    var armed: Operation.ArmedAction?
    /// Whether a callback ran an armed action during the current operation.
    var actedInCallback = false
    /// The registrations of the `keyPaths:` call in progress that the library has not reached yet: it
    /// makes them one after the other, so an action in an earlier one's `.initial` callback comes first.
    var notReached: [Registration] = []
    /// The errors controllers reported through `errorHandler` during the current operation.
    var reportedErrors: [KVOError] = []
    /// Every object the program made, to check at the end that each one has gone.
    let lifetimes = LifetimeWatch()
    /// Controllers and observers the program released: each must be gone as soon as an operation ends.
    let released = LifetimeWatch()
    private var made = 0

    /// Runs `bytes` as a program; traps on any broken invariant.
    static func run(_ bytes: [UInt8]) {
        var input = ByteReader(bytes)
        let lifetimes: LifetimeWatch
        do {
            let program = Program()
            lifetimes = program.lifetimes
            let retaining = ByteReader.flag(input.byte(), 0)
            trace(
                "set up: roots 0 (with a chain) and 1, observers 0 and 1\(retaining ? ", controller 1 retaining" : "")"
            )
            program.setUp(retaining: retaining)
            var count = 0
            while !input.isAtEnd, count < maxOperations {
                let operation = Operation(&input)
                trace("\(count): \(operation)")
                program.step(operation)
                count += 1
            }
            trace("tear down")
            program.tearDown()
        }
        lifetimes.requireAllGone()
    }

    private func setUp(retaining: Bool) {
        roots[0] = makeRoot(chain: true)
        roots[1] = makeRoot(chain: false)
        for slot in 0..<Operation.observers {
            watchers[slot] = makeWatcher()
            controllers[slot] = makeController(for: slot, retainsObserved: retaining && slot == 1)
        }
    }

    /// Runs one operation, then checks what must hold between operations.
    func step(_ operation: Operation) {
        let callable = registrations.map(\.canBeCalled)
        actedInCallback = false
        reportedErrors = []
        perform(operation)
        if actedInCallback {
            // An action inside a callback may end registrations halfway through delivering a change.
            for (registration, wasCallable) in zip(registrations, callable)
            where wasCallable && !registration.canBeCalled {
                registration.isCounted = false
            }
        }
        released.requireAllGone()
        for registration in registrations {
            registration.checkCount()
        }
        checkControllerCounts()
        checkTokens()
        invariant((bag?.count ?? 0) == bagCount, "the bag holds \(bag?.count ?? 0) tokens, not \(bagCount)")
    }

    private func perform(_ operation: Operation) {
        switch operation {
        case .newRoot(let slot): roots[slot] = makeRoot(chain: slot == 0)
        case .releaseRoot(let slot): roots[slot] = nil
        case .newWatcher(let slot):
            releaseWatcher(slot)
            watchers[slot] = makeWatcher()
        case .releaseWatcher(let slot): releaseWatcher(slot)
        case .newController(let slot, let retains):
            guard watchers[slot] != nil else { return }
            releaseController(slot)
            controllers[slot] = makeController(for: slot, retainsObserved: retains)
        case .releaseController(let slot): releaseController(slot)
        case .observe(let slot, let root, let form, let first, let second, let options):
            observe(controller: slot, root: root, form: form, first, second, options: options)
        case .observeToken(let slot, let root, let path, let options):
            observeToken(slot, root: root, path, options: options)
        case .unobserveTyped(let slot, let root, let path): unobserveTyped(controller: slot, root: root, path)
        case .unobserveString(let slot, let root, let path): unobserveString(controller: slot, root: root, path)
        case .unobserveObject(let slot, let root): unobserveObject(controller: slot, root: root)
        case .unobserveAll(let slot): unobserveAll(controller: slot)
        case .invalidateToken(let slot): invalidateToken(slot)
        case .releaseToken(let slot): releaseToken(slot)
        case .arm(let action): armed = action
        case .bag(let change, let slot): changeBag(change, token: slot)
        default: change(operation)
        }
    }

    /// Each live controller holds between the registrations the model is sure of and those plus the unsure ones.
    private func checkControllerCounts() {
        for (slot, controller) in controllers.enumerated() {
            guard let controller else { continue }
            let mine = registrations.filter { $0.controller === controller && $0.root != nil }
            let sure = mine.filter { $0.state == .registered }.count
            let unsure = mine.filter { $0.state == .unsure }.count
            let count = controller.observationCount
            invariant(
                count >= sure && count <= sure + unsure,
                "controller \(slot) holds \(count) registrations; the program made \(sure) (+\(unsure) unsure)"
            )
        }
    }

    /// A token is valid exactly while it is not invalidated and its object lives.
    private func checkTokens() {
        for (slot, token) in tokens.enumerated() {
            guard let token, let registration = registrations.last(where: { $0.token === token }) else { continue }
            let valid = registration.state == .registered && registration.root != nil
            invariant(token.isValid == valid, "token \(slot) isValid is \(token.isValid), expected \(valid)")
        }
    }

    /// Releases everything: controllers first, then observers, then roots; every token must then be
    /// invalid (its object is gone), and every object the program made must have deinitialised.
    private func tearDown() {
        armed = nil
        changeBag(.release, token: 0)
        for slot in controllers.indices { releaseController(slot) }
        for slot in watchers.indices { releaseWatcher(slot) }
        roots = roots.map { _ in nil }
        for (slot, token) in tokens.enumerated() {
            invariant(token?.isValid != true, "token \(slot) is still valid after its object deinitialised")
        }
        tokens = tokens.map { _ in nil }
        released.requireAllGone()
    }

    func makeRoot(chain: Bool) -> Root {
        let root = Root()
        lifetimes.watch(root, "a Root")
        if chain { root.middle = makeMiddle(leaf: true) }
        return root
    }

    func makeMiddle(leaf: Bool) -> Middle {
        let middle = Middle()
        lifetimes.watch(middle, "a Middle")
        if leaf { middle.leaf = makeLeaf() }
        return middle
    }

    func makeLeaf() -> Leaf {
        let leaf = Leaf()
        lifetimes.watch(leaf, "a Leaf")
        return leaf
    }

    private func makeWatcher() -> Watcher {
        let watcher = Watcher()
        made += 1
        lifetimes.watch(watcher, "observer #\(made)")
        return watcher
    }

    private func makeController(for slot: Int, retainsObserved: Bool) -> KVOController<Watcher>? {
        guard let watcher = watchers[slot] else { return nil }
        let controller = KVOController(observer: watcher, retainsObserved: retainsObserved)
        controller.errorHandler = { [unowned self] error in reportedErrors.append(error) }
        made += 1
        lifetimes.watch(controller, "controller #\(made)")
        return controller
    }
}
