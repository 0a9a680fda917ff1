import Foundation

/// The objects one soak thread owns: it alone writes them, numbering each change, while every thread
/// may observe them.
///
/// Every set is made under `turns`, and so is every read of the `@Observed` objects' properties from
/// any thread (the discipline a model shared across threads needs: ThreadingAndLifetimes.md, "Sharing a
/// model across threads"), registering included, since it reads the key path. That also orders each
/// such `observe` with the owner's sets, so that its registration knows exactly which changes are due.
/// The racing links are read through their own locks, so they are observed without `turns`, racing the
/// owner's sets; their registrations learn where they start from their first record.
final class OwnedGroup: @unchecked Sendable {  // the `@Observed` properties and all counters are guarded by `turns`
    /// The index of the owning thread.
    let owner: Int
    let turns = NSLock()
    let cells: [SoakCell]
    let root: ChainRoot
    let racingCell = RacingLink()
    let racingRoot: RacingLink
    /// The cell that is replaced now and then, so that it dies while others observe it.
    private(set) var transient = SoakCell()
    private(set) var transientGeneration = 0
    private var transientSequence = 0
    /// The final state of the transient cell last replaced.
    private var retired: (generation: Int, state: TargetState)?
    private var cellSequences: [Int]
    private var racingCellSequence = 0
    private var chain = ChainProgress()
    private var racingChain = ChainProgress()
    /// The chains' leaves, nil while detached.
    private var leaf: ChainLeaf?
    private var racingLeaf: RacingLink?

    init(owner: Int, cellCount: Int) {
        self.owner = owner
        cells = (0..<cellCount).map { _ in SoakCell() }
        cellSequences = Array(repeating: 0, count: cellCount)
        let leaf = ChainLeaf(value: 0)
        self.leaf = leaf
        root = ChainRoot(middle: ChainMiddle(leaf: leaf))
        let racingLeaf = RacingLink(value: 0)
        self.racingLeaf = racingLeaf
        racingRoot = RacingLink(next: RacingLink(next: racingLeaf))
    }

    /// The state of `target` now; nil for a transient cell replaced before the last one. Call with `turns` held.
    func state(of target: Target) -> TargetState? {
        switch target {
        case .cell(let index):
            let sequence = cellSequences[index]
            return TargetState(value: sequence, sequence: sequence, events: sequence)
        case .chain:
            return chain.state
        case .transient(let generation):
            if generation == transientGeneration {
                return TargetState(value: transientSequence, sequence: transientSequence, events: transientSequence)
            }
            return retired?.generation == generation ? retired?.state : nil
        case .racingCell:
            return TargetState(value: racingCellSequence, sequence: racingCellSequence, events: racingCellSequence)
        case .racingChain:
            return racingChain.state
        }
    }

    // MARK: The owner's sets: each under `turns`, timed (a sample of them) by kind.

    func advanceCell(_ index: Int, timings: inout SetTimings) {
        turns.withLock {
            cellSequences[index] += 1
            let (cell, sequence) = (cells[index], cellSequences[index])
            timings.time(.cell) { cell.value = sequence }
        }
    }

    func advanceRacingCell(timings: inout SetTimings) {
        turns.withLock {
            racingCellSequence += 1
            let sequence = racingCellSequence
            timings.time(.racingCell) { racingCell.value = sequence }
        }
    }

    /// Sets both chains' leaves to their next sequence numbers (a detached chain has no leaf to set).
    func advanceChains(timings: inout SetTimings) {
        turns.withLock {
            if let leaf, let sequence = chain.advance() { timings.time(.chainLeaf) { leaf.value = sequence } }
            if let racingLeaf, let sequence = racingChain.advance() {
                timings.time(.racingChainLeaf) { racingLeaf.value = sequence }
            }
        }
    }

    /// Replaces both chains' middle links with new ones whose new leaves hold the next sequence numbers
    /// (so that the chains' values change); the old middles and leaves die in the sets, still observed.
    /// With `detaching`, a chain attached now is detached instead (its middle link set to nil).
    func replaceMiddles(detaching: Bool, timings: inout SetTimings) {
        turns.withLock {
            if detaching, chain.detach() {
                leaf = nil
                timings.time(.middleLink) { root.middle = nil }
            } else {
                let leaf = ChainLeaf(value: chain.replaceMiddle())
                let middle = ChainMiddle(leaf: leaf)
                self.leaf = leaf
                timings.time(.middleLink) { root.middle = middle }
            }
            if detaching, racingChain.detach() {
                racingLeaf = nil
                timings.time(.middleLink) { racingRoot.next = nil }
            } else {
                let leaf = RacingLink(value: racingChain.replaceMiddle())
                let middle = RacingLink(next: leaf)
                racingLeaf = leaf
                timings.time(.middleLink) { racingRoot.next = middle }
            }
        }
    }

    func advanceTransient(timings: inout SetTimings) {
        turns.withLock {
            transientSequence += 1
            let (cell, sequence) = (transient, transientSequence)
            timings.time(.transientCell) { cell.value = sequence }
        }
    }

    /// Replaces the transient cell with a new one and returns the old one, for the caller to release.
    func replaceTransient() -> SoakCell {
        turns.withLock {
            retired = (transientGeneration, state(of: .transient(generation: transientGeneration))!)
            transientGeneration += 1
            transientSequence = 0
            let old = transient
            transient = SoakCell()
            return old
        }
    }
}
