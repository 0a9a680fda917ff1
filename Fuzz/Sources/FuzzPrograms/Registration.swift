import FuzzSupport
import KVOMediator

/// One registration a program asked for, with what the program expects of it: whether it is
/// registered, and (for direct key paths) how many callbacks it must have had.
///
/// `@unchecked Sendable`: programs run on one thread; the blocks that capture it are `@Sendable` only
/// because the library's signatures ask for it.
final class Registration: @unchecked Sendable {
    /// What the library should have done with the observe call.
    enum State {
        /// Registered, and not unobserved, invalidated or released since.
        case registered
        /// Never registered (a repeated key path, an observer already gone) or ended since: never called.
        case ended
        /// Either: the string and typed forms of a chain meet only when the library can name the
        /// chain, which it cannot while a link is nil. Callbacks are allowed and not counted.
        case unsure
    }

    /// Who is called: an observer through a controller, or a token's handler.
    enum Owner {
        case controller(slot: Int)
        case token(slot: Int)
    }

    unowned let program: Program
    let owner: Owner
    let path: ObservedPath
    let options: KVOOptions
    /// Made through the string form (`observe(_:keyPath: String)`).
    let isStringForm: Bool
    weak var root: Root?
    weak var controller: KVOController<Watcher>?
    weak var watcher: Watcher?
    weak var token: KVOObservation?
    /// True while a token's `observe` call runs: its `.initial` callback comes before the token exists.
    var isStarting = false
    /// Whether its token is in the program's bag, which keeps it alive and ends it with the bag.
    var isInBag = false
    var state: State
    /// Callbacks received, and callbacks the program's count model expects.
    var received = 0
    var expected = 0
    /// False once the model cannot tell the exact count (unsure, or an action inside a callback ended
    /// it halfway through a change).
    var isCounted = true

    init(
        program: Program,
        owner: Owner,
        path: ObservedPath,
        options: KVOOptions,
        isStringForm: Bool,
        root: Root,
        state: State
    ) {
        self.program = program
        self.owner = owner
        self.path = path
        self.options = options
        self.isStringForm = isStringForm
        self.root = root
        self.state = state
        isCounted = state == .registered
    }

    /// Whether a change may be delivered now: registered or unsure, with its object, its controller
    /// and observer, or its token, all alive.
    var canBeCalled: Bool {
        guard state != .ended, root != nil else { return false }
        switch owner {
        case .controller: return controller != nil && watcher.map { !$0.released } == true
        case .token: return token != nil || isStarting
        }
    }

    /// Whether the count model expects a callback for each change of what it reads.
    var mustBeCalled: Bool {
        state == .registered && canBeCalled
    }

    /// Records that `property` of `object` is about to change `times` times (once per set, collection
    /// mutation or will/did pair): one callback each if the registration reads it (two with `.prior`).
    func expectChange(of property: ObservedProperty, on object: AnyObject, times: Int) {
        guard mustBeCalled, let root, path.reads(property, of: object, from: root) else { return }
        expected += options.contains(.prior) ? 2 * times : times
    }

    /// A callback: checks that it may come at all, counts it, and runs an action armed for it.
    func fire(watcher called: Watcher?) {
        invariant(state != .ended, "a callback after its registration ended (or was never made): \(self)")
        invariant(root != nil, "a callback for an object that has deinitialised: \(self)")
        switch owner {
        case .controller:
            invariant(controller != nil, "a callback of a released controller: \(self)")
            invariant(called === watcher, "a callback passed another observer: \(self)")
            invariant(called?.released == false, "a callback to a released observer: \(self)")
        case .token:
            invariant(token != nil || isStarting, "a callback of a released token: \(self)")
        }
        received += 1
        trace("   callback #\(received) of \(self)")
        program.runArmedAction(inCallbackOf: self)
    }

    /// Checks the count model, where it applies.
    func checkCount() {
        invariant(!isCounted || received == expected, "\(received) callbacks, expected \(expected): \(self)")
    }
}

extension Registration: CustomStringConvertible {
    var description: String {
        "\(owner) \(isStringForm ? "string" : "typed") \(path) options \(options.rawValue) (\(state))"
    }
}
