import KVOMediator

/// What a registration observes, once its target is resolved under its group's `turns`.
enum ObservedObject {
    /// A cell's `\.value` (a long-lived or a transient cell).
    case cell(SoakCell)
    /// The chain `\.middle?.leaf?.value` of a root.
    case root(ChainRoot)
    /// A racing link's `\.value`.
    case racingCell(RacingLink)
    /// The chain `\.next?.next?.value` of a racing root.
    case racingRoot(RacingLink)
}

extension OwnedGroup {
    /// Registers `choice` with `turns` held, so that the registration's probe starts from exactly the
    /// state its `observe` read, or, with `racing` (for a choice that `canRace`), without it, racing
    /// the owner's sets. `make` registers (and must not wait for another thread).
    func register(
        _ choice: TargetChoice,
        racing: Bool = false,
        label: (Target) -> ProbeLabel,
        options: KVOOptions,
        make: (ObservedObject, SequenceProbe) -> Void
    ) -> (probe: SequenceProbe, target: Target, object: ObservedObject) {
        precondition(!racing || choice.canRace, "only racing links may be read without turns")
        turns.lock()
        let (target, object): (Target, ObservedObject) =
            switch choice {
            case .firstCell: (.cell(0), .cell(cells[0]))
            case .secondCell: (.cell(1), .cell(cells[1]))
            case .chain: (.chain, .root(root))
            case .transient: (.transient(generation: transientGeneration), .cell(transient))
            case .racingCell: (.racingCell, .racingCell(racingCell))
            case .racingChain: (.racingChain, .racingRoot(racingRoot))
            }
        let probe = SequenceProbe(label(target), start: state(of: target)!, options: options, racing: racing)
        if racing { turns.unlock() }
        make(object, probe)
        if racing { turns.lock() }
        probe.verifyStarted()
        turns.unlock()
        return (probe, target, object)
    }
}
