import KVOMediator

/// A thread's registrations that live for the whole phase, made before any set: each must see every
/// change of its target exactly once, in order. Three through a controller (on the next thread's
/// objects), three through tokens (on the one after).
final class LiveRegistrations {  // used only by the thread that made it
    private var observer: SoakObserver?
    private var tokens: [KVOObservation] = []
    private var probes: [(probe: SequenceProbe, group: OwnedGroup, target: Target)] = []

    init(thread: Int, groups: [OwnedGroup]) {
        let next = groups[(thread + 1) % groups.count]
        let afterNext = groups[(thread + 2) % groups.count]
        let observer = SoakObserver()
        self.observer = observer
        func label(_ group: OwnedGroup, _ front: StaticString) -> (Target) -> ProbeLabel {
            { ProbeLabel(thread: thread, owner: group.owner, target: $0, front: front, isLive: true) }
        }
        let made = [
            (next, TargetChoice.firstCell, KVOOptions([.old, .new]), label(next, "controller"), true),
            (next, .chain, [.initial, .old, .new], label(next, "controller"), true),
            (afterNext, .secondCell, [.prior, .old, .new], label(afterNext, "token"), false),
            (afterNext, .chain, [.old, .new], label(afterNext, "token"), false),
            (next, .racingCell, [.initial, .old, .new], label(next, "controller"), true),
            (afterNext, .racingChain, [.prior, .old, .new], label(afterNext, "token"), false),
        ]
        for (group, choice, options, label, byController) in made {
            let registration = group.register(choice, label: label, options: options) { object, probe in
                if byController {
                    Registering.observe(object, by: observer, options: options, probe: probe)
                } else if let token = Registering.token(for: object, options: options, probe: probe) {
                    tokens.append(token)
                }
            }
            probes.append((registration.probe, group, registration.target))
        }
    }

    /// Checks each registration against its target's final state; call once every owner has stopped.
    func verify() {
        for (probe, group, target) in probes {
            group.turns.withLock { probe.verifyWholePhase(final: group.state(of: target)!) }
        }
    }

    /// Ends the registrations (releasing the observer and the tokens) and returns the records they got.
    func end() -> Int {
        observer = nil
        tokens = []
        for (probe, _, _) in probes { probe.ended.store(true, ordering: .releasing) }
        let records = probes.reduce(0) { total, entry in entry.group.turns.withLock { total + entry.probe.records } }
        probes = []
        return records
    }
}
