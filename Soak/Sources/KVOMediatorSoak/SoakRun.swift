import Synchronization

/// What the soak's threads share: every thread's group of objects, the barriers between the phases,
/// and the flag that ends the churning phase.
final class SoakRun: Sendable {
    let groups: [OwnedGroup]
    /// Passed once every thread has made its whole-phase registrations (and the main thread is ready).
    let started: Barrier
    /// Passed once every thread has stopped writing: the groups' final states are fixed.
    let writersStopped: Barrier
    private let stopFlag = Atomic<Bool>(false)

    init(threads: Int) {
        groups = (0..<threads).map { OwnedGroup(owner: $0, cellCount: 2) }
        started = Barrier(parties: threads + 1)
        writersStopped = Barrier(parties: threads)
    }

    var isStopped: Bool {
        stopFlag.load(ordering: .relaxed)
    }

    func stop() {
        stopFlag.store(true, ordering: .relaxed)
    }
}
