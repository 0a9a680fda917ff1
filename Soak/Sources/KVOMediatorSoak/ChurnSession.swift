import KVOMediator

/// Registrations one thread makes on one group's objects, keeps for a few rounds while the group's owner
/// sets them, then ends in one of the ways a registration can end, checking each against its probe.
/// Those of racing links are made while the owner sets them; the others take turns with its sets.
final class ChurnSession {  // used only by the thread that made it
    /// The front end the registrations were made through.
    private enum Front {
        case controller(SoakObserver)
        case tokens([KVOObservation])
        case bag(KVOObservationBag)
    }

    /// A registration, with its observed object: strongly if the group keeps it anyway, weakly if it
    /// is the transient cell, which must be free to die while observed.
    private struct Registration {
        let probe: SequenceProbe
        let target: Target
        let object: ObservedObject?
        weak var transient: SoakCell?

        var observed: ObservedObject? {
            object ?? transient.map { .cell($0) }
        }
    }

    private static let optionSets: [KVOOptions] = [
        [.old, .new], [.initial, .old, .new], [.prior, .old, .new], [.initial, .prior, .old, .new],
    ]

    let group: OwnedGroup
    let endsAtRound: Int
    private var front: Front?
    private var registrations: [Registration] = []

    var registrationCount: Int { registrations.count }

    /// Makes one to three registrations on `group`'s objects through a controller, tokens or a bag.
    init(thread: Int, group: OwnedGroup, endsAtRound: Int, random: inout SplitMix64, samples: inout WeakSamples) {
        self.group = group
        self.endsAtRound = endsAtRound
        let choices = TargetChoice.allCases.shuffled(using: &random).prefix(1 + random.below(3))
        let frontKind = random.below(4)
        let observer = frontKind < 2 ? SoakObserver() : nil
        var tokens: [KVOObservation] = []
        for choice in choices {
            // The racing links are observed while their owner sets them, which rules out `.initial`
            // (its record would race the owner's).
            var options = Self.optionSets[random.below(Self.optionSets.count)]
            if choice.canRace { options.remove(.initial) }
            let front: StaticString = observer != nil ? "controller" : frontKind == 2 ? "token" : "bag"
            let label = { ProbeLabel(thread: thread, owner: group.owner, target: $0, front: front, isLive: false) }
            let observeAgain = random.oneIn(4)
            let made = group.register(choice, racing: choice.canRace, label: label, options: options) { object, probe in
                if let observer {
                    Registering.observe(object, by: observer, options: options, probe: probe)
                    if observeAgain { Registering.observeAgain(object, by: observer, label: probe.label) }
                } else if let token = Registering.token(for: object, options: options, probe: probe) {
                    tokens.append(token)
                }
            }
            var registration = Registration(
                probe: made.probe,
                target: made.target,
                object: choice == .transient ? nil : made.object
            )
            if case .cell(let cell) = made.object, choice == .transient { registration.transient = cell }
            registrations.append(registration)
        }
        if let observer {
            front = .controller(observer)
            if random.oneIn(8) {
                samples.add(observer, kind: "observer")
                if let controller = observer.controller { samples.add(controller, kind: "controller") }
            }
        } else if frontKind == 2 {
            front = .tokens(tokens)
        } else {
            let bag = KVOObservationBag()
            for token in tokens { token.store(in: bag) }
            front = .bag(bag)
        }
    }

    /// Ends the registrations in one of the ways at random, checks each, and returns how many records
    /// they were given.
    func end(random: inout SplitMix64) -> Int {
        // Every change made before this point is due to each registration (all were made after it).
        let ends = group.turns.withLock { registrations.map { group.state(of: $0.target) } }
        let probes = registrations.map(\.probe)
        var endedByRelease = true
        switch front {
        case .controller(let observer):
            endedByRelease = false
            endControllerRegistrations(of: observer, random: &random)
        case .tokens(let tokens):
            if random.oneIn(2) {
                for token in tokens { token.invalidate() }
                if tokens.contains(where: \.isValid) {
                    Violations.shared.report("\(probes[0].label): a token is valid after invalidate()")
                }
            }
        case .bag(let bag):
            if random.oneIn(2) {
                bag.invalidateAll()
                if bag.count != 0 {
                    Violations.shared.report("\(probes[0].label): a bag is not empty after invalidateAll()")
                }
            }
        case nil:
            break
        }
        // The last reference to the observer, the tokens or the bag: releasing it ends what is left.
        front = nil
        if endedByRelease {
            for probe in probes { probe.ended.store(true, ordering: .releasing) }
        }
        // Read under `turns`: no set (and so no callback) runs meanwhile, and each record is visible.
        return group.turns.withLock {
            var records = 0
            for (registration, end) in zip(registrations, ends) {
                if let end, let after = group.state(of: registration.target) {
                    registration.probe.verify(endedBetween: end, and: after)
                }
                records += registration.probe.records
            }
            registrations = []
            return records
        }
    }

    private func endControllerRegistrations(of observer: SoakObserver, random: inout SplitMix64) {
        let probes = registrations.map(\.probe)
        switch random.below(5) {
        case 0:
            // One registration at a time, by key path; each is over when its unobserve returns.
            for registration in registrations {
                if let object = registration.observed, let controller = observer.controller {
                    Registering.unobserve(object, keyPathOf: controller)
                }
                registration.probe.ended.store(true, ordering: .releasing)
            }
        case 1:
            for registration in registrations {
                if let object = registration.observed, let controller = observer.controller {
                    Registering.unobserve(object, allOf: controller)
                }
            }
            for probe in probes { probe.ended.store(true, ordering: .releasing) }
        case 2:
            observer.controller?.unobserveAll()
            if observer.controller?.observationCount != 0 {
                Violations.shared.report("\(probes[0].label): a controller holds registrations after unobserveAll()")
            }
            for probe in probes { probe.ended.store(true, ordering: .releasing) }
        case 3:
            // Releasing the controller ends its registrations in its deinit; the observer lives on.
            observer.controller = nil
            for probe in probes { probe.ended.store(true, ordering: .releasing) }
        default:
            // Releasing the observer (by the caller): its deinit marks the probes ended (a callback
            // running now may still hold it, and release it last, on the changing thread).
            break
        }
    }
}
