/// A registration's gate, as a value: whether its callbacks may start, how many are running, and who
/// releases the callbacks once it has ended. ``KVOInfo`` keeps one in an atomic word and applies
/// these transitions to it (the side effects are the registration's); each is a pure function.
///
/// ```
///  initial ──start──▶ observing ──cancel──▶ not observing ──(no callback in flight)──▶ released
///     │                    │                      ▲
///     └───────cancel───────┴──────────────────────┘   callbacks enter while not cancelled;
///                                                      a canceller inside a callback holds the
///                                                      release for the last one out
/// ```
///
/// Impossible transitions (leaving a gate nobody is in, starting twice, releasing or holding the
/// release of a registration still observing) stop debug builds.
struct RegistrationGate: Equatable {
    /// The word as stored: flags in the low bits, the in-flight count above them.
    var rawValue: Int

    /// Ended: no callback may start (`cancel`, or its object's deinit).
    static let cancelledBit = 1
    /// Exactly one `@Observed` slot of its own object: delivered from the setter's values.
    static let directBit = 2
    /// The callbacks have been released (ended, with none in flight); happens once.
    static let releasedBit = 4
    /// A canceller that could not wait (inside a callback) left a retain for the last thread out.
    static let holdBit = 8
    /// Subscribed to what it depends on (`start` finished): observing, unless cancelled.
    static let startedBit = 16
    /// One callback in flight (the count is the word shifted right by 5).
    static let inFlightUnit = 32

    init(rawValue: Int = 0) {
        self.rawValue = rawValue
    }

    var isCancelled: Bool { rawValue & Self.cancelledBit != 0 }
    var isDirect: Bool { rawValue & Self.directBit != 0 }
    var isReleased: Bool { rawValue & Self.releasedBit != 0 }
    var holdsRelease: Bool { rawValue & Self.holdBit != 0 }
    var isStarted: Bool { rawValue & Self.startedBit != 0 }
    var inFlight: Int { rawValue / Self.inFlightUnit }

    /// The states DESIGN names.
    enum Phase: Equatable {
        /// Made, not yet subscribed.
        case initial
        /// Subscribed; callbacks may start.
        case observing
        /// Ended; callbacks in flight may still be finishing, until released.
        case notObserving
    }

    var phase: Phase {
        if isCancelled { return .notObserving }
        return isStarted ? .observing : .initial
    }

    // MARK: Transitions

    /// A callback asks to start: refused once cancelled.
    enum Entry: Equatable {
        case enter(RegistrationGate)
        case refuse
    }

    func entering() -> Entry {
        isCancelled ? .refuse : .enter(RegistrationGate(rawValue: rawValue &+ Self.inFlightUnit))
    }

    /// A dying registrar runs its registrations' teardown as a callback, cancelled or not.
    func enteringForTeardown() -> RegistrationGate {
        RegistrationGate(rawValue: rawValue &+ Self.inFlightUnit)
    }

    /// What the thread leaving the gate must do.
    enum Exit: Equatable {
        case none
        /// It was the last one out of a registration whose canceller left the release to it.
        case releaseHeld
    }

    /// The state after one callback leaves, and what the leaving thread must do.
    func leaving() -> (RegistrationGate, Exit) {
        precondition(inFlight > 0, "KVOMediator: leaving the gate of a registration nobody is in")
        let after = RegistrationGate(rawValue: rawValue &- Self.inFlightUnit)
        return (after, after.inFlight == 0 && after.holdsRelease ? .releaseHeld : .none)
    }

    /// Subscribed: observing from now on (unless already cancelled meanwhile).
    func starting() -> RegistrationGate {
        precondition(!isStarted, "KVOMediator: a registration started twice")
        return RegistrationGate(rawValue: rawValue | Self.startedBit)
    }

    /// Found to be direct while starting.
    func markingDirect() -> RegistrationGate {
        RegistrationGate(rawValue: rawValue | Self.directBit)
    }

    /// What the canceller must do after cancelling.
    enum Cancellation: Equatable {
        /// First cancellation: unsubscribe from every dependency.
        case unsubscribe
        /// Already cancelled: nothing more to unsubscribe.
        case none
    }

    func cancelling() -> (RegistrationGate, Cancellation) {
        (RegistrationGate(rawValue: rawValue | Self.cancelledBit), isCancelled ? .none : .unsubscribe)
    }

    /// Releasing the callbacks: only once, and only once ended with none in flight (or by the
    /// holder of the release).
    func releasing() -> (RegistrationGate, isFirst: Bool) {
        precondition(isCancelled, "KVOMediator: releasing the callbacks of a registration still observing")
        return (RegistrationGate(rawValue: rawValue | Self.releasedBit), !isReleased)
    }

    /// A canceller that cannot wait for the callbacks in flight decides who releases them.
    enum Hold: Equatable {
        /// None in flight: release them now.
        case releaseNow
        /// Another canceller already left the release to the last thread out.
        case alreadyHeld
        /// Left to the last thread out (the canceller must retain the registration for it).
        case hold(RegistrationGate)
    }

    /// (`passesHeld`: whether a thread holds a pass into the gate, which counts as a callback in flight:
    /// see ``GatePasses``.)
    func holding(passesHeld: Bool = false) -> Hold {
        precondition(isCancelled, "KVOMediator: holding the release of a registration still observing")
        if inFlight == 0 && !passesHeld { return .releaseNow }
        if holdsRelease { return .alreadyHeld }
        return .hold(RegistrationGate(rawValue: rawValue | Self.holdBit))
    }

    /// The last thread out (its count or its pass given back, with no pass left) claims the held release:
    /// nil if it is not held (another claimed it: a dying registrar's teardown enters even a cancelled
    /// gate, so two may race) or callbacks are in flight (the last of them claims it).
    func claimingHold() -> RegistrationGate? {
        guard holdsRelease, inFlight == 0 else { return nil }
        return RegistrationGate(rawValue: rawValue & ~Self.holdBit)
    }
}
