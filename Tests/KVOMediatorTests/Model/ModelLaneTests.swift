import Foundation
import KVOMediator
import Synchronization
import Testing

/// The reference model's held lane (`ModelLane`) must hold: the model states that a coalescing
/// registration's records wait until the lane runs. The library delivers through its own serial queue,
/// which targets the lane's; deliveries of other registrations (or other tests' waits) keep that queue
/// draining, and a drain in flight as the lane is held again must not take in what is queued later.
@Suite struct ModelLaneTests {
    @Test func aChangeMadeAfterTheLaneRunsWaitsForItsNextRunWhileOtherDeliveriesKeepItsQueueBusy() {
        let lane = ModelLane()
        let observer = TestObserver()
        let (busy, held) = (Importer(), Importer())
        observer.kvoController.observe(busy, keyPath: \.progress, delivery: .queue(lane.queue)) { _, _ in
            usleep(30)
        }
        let records = Recorder<Int>()
        observer.kvoController.observe(
            held,
            keyPath: \.progress,
            options: [.old, .new],
            delivery: .queue(lane.queue, coalescing: .latest)
        ) { _, change in records.append(change) }
        let stop = Atomic<Bool>(false)
        let changer = TestThread {
            while !stop.load(ordering: .relaxed) {
                busy.progress += 1
                usleep(60)
            }
        }
        var early: [Int] = []
        for value in 1...100 {
            lane.run()
            held.progress = value
            usleep(1_000)
            if records.count == value { early.append(value) }
        }
        stop.store(true, ordering: .relaxed)
        changer.join()
        lane.run()
        #expect(early == [], "delivered before the lane ran again")
        #expect(records.changes == (1...100).map { change(\Importer.progress, old: $0 - 1, new: $0) })
    }
}
