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
    /// A thread giving its pass back found the release held and counted itself in (see ``GatePasses``)
    /// since the last one out cleared this: the passes that one read may be out of date.
    static let tradedBit = 32
    /// One callback in flight (the count is the word shifted right by 6).
    static let inFlightUnit = 64

    init(rawValue: Int = 0) {
        self.rawValue = rawValue
    }

    var isCancelled: Bool { rawValue & Self.cancelledBit != 0 }
    var isDirect: Bool { rawValue & Self.directBit != 0 }
    var isReleased: Bool { rawValue & Self.releasedBit != 0 }
    var holdsRelease: Bool { rawValue & Self.holdBit != 0 }
    var isStarted: Bool { rawValue & Self.startedBit != 0 }
    var tradedPass: Bool { rawValue & Self.tradedBit != 0 }
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

    /// Counted in whether cancelled or not, by a thread that must not be released under: a dying
    /// registrar's teardown, a canceller that leaves the release to the last thread out, a pass being
    /// given back into a gate whose release is held (see ``GatePasses``).
    func countingIn() -> RegistrationGate {
        RegistrationGate(rawValue: rawValue &+ Self.inFlightUnit)
    }

    /// A thread giving its pass back found the release held: it counts itself in, and marks that it did,
    /// so that the last one out, which may have read its pass, reads the passes again.
    func tradingPassForCount() -> RegistrationGate {
        RegistrationGate(rawValue: (rawValue &+ Self.inFlightUnit) | Self.tradedBit)
    }

    /// The last one out, before it reads the passes: clears the mark of passes traded for counts (nil if
    /// there is none), so that a trade after its read fails its leaving step, which then reads them again.
    func clearingTradedMark() -> RegistrationGate? {
        tradedPass ? RegistrationGate(rawValue: rawValue & ~Self.tradedBit) : nil
    }

    /// What a thread counted in must do to leave.
    enum Exit: Equatable {
        /// Store this.
        case leave(RegistrationGate)
        /// It is the last one counted in and a canceller left the release to the last thread out: it reads
        /// the passes first (see ``GatePasses``), then leaves with `leaving(passesHeld:)`, still counted in.
        case readPassesFirst
    }

    /// The state after one callback leaves, or that the leaving thread must first read the passes.
    func leaving() -> Exit {
        precondition(inFlight > 0, "KVOMediator: leaving the gate of a registration nobody is in")
        if holdsRelease && inFlight == 1 { return .readPassesFirst }
        return .leave(RegistrationGate(rawValue: rawValue &- Self.inFlightUnit))
    }

    /// The state after one callback leaves, having read the passes (`passesHeld`: a thread other than one
    /// only giving its pass back holds one): the last one out claims the held release, with the canceller's
    /// retain, in the same step, unless a pass is held (its holder then claims it when it leaves).
    func leaving(passesHeld: Bool) -> (RegistrationGate, claimsRelease: Bool) {
        precondition(inFlight > 0, "KVOMediator: leaving the gate of a registration nobody is in")
        let after = rawValue &- Self.inFlightUnit
        if holdsRelease && inFlight == 1 && !passesHeld {
            return (RegistrationGate(rawValue: after & ~Self.holdBit), true)
        }
        return (RegistrationGate(rawValue: after), false)
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

    /// A canceller that cannot wait for the callbacks in flight, counted in (``countingIn()``), leaves their
    /// release to the last thread out, with a retain: nil if another canceller already did.
    func holdingRelease() -> RegistrationGate? {
        precondition(isCancelled, "KVOMediator: holding the release of a registration still observing")
        precondition(inFlight > 0, "KVOMediator: holding the release of a gate without being in it")
        return holdsRelease ? nil : RegistrationGate(rawValue: rawValue | Self.holdBit)
    }
}
