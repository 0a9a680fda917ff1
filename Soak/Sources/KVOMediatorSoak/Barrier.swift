import Foundation

/// Makes threads wait for each other, round after round.
final class Barrier: @unchecked Sendable {  // `arrived` and `generation` are guarded by `condition`
    private let condition = NSCondition()
    private let parties: Int
    private var arrived = 0
    private var generation = 0

    init(parties: Int) {
        self.parties = parties
    }

    func arriveAndWait() {
        condition.withLock {
            let current = generation
            arrived += 1
            if arrived == parties {
                arrived = 0
                generation += 1
                condition.broadcast()
            } else {
                while generation == current { condition.wait() }
            }
        }
    }
}
