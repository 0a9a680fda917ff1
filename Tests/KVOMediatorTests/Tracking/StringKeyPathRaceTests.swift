import Foundation
import Synchronization
import Testing

@testable import KVOMediator

/// String key paths read exactly the properties they name: a model with one writer per property
/// stays sound while its other properties are observed by name. Each run is a child process, so a
/// crash is a recorded failure rather than a dead test run.
@Suite struct StringKeyPathRaceTests {
    /// How long each race runs: `KVO_RACE_SECONDS`, or 10 s.
    static var seconds: Double {
        ProcessInfo.processInfo.environment["KVO_RACE_SECONDS"].flatMap(Double.init) ?? 10
    }

    @Test func observingOnePropertyByNameNeverReadsAnotherBeingWritten() async {
        await #expect(processExitsWith: .success) {
            let node = Node()
            let observer = TestObserver()
            let stop = Atomic<Bool>(false)
            let writer = TestThread {  // the only writer of `items`
                var value = 0
                while !stop.load(ordering: .relaxed) {
                    value &+= 1
                    node.items = [value, value &+ 1]
                }
            }
            let deadline = Date().addingTimeInterval(StringKeyPathRaceTests.seconds)
            var rounds = 0
            while Date() < deadline {
                for _ in 0..<100 {
                    try? observer.kvoController.observe(node, keyPath: "a") { _, _, _ in }
                    observer.kvoController.unobserveAll()
                }
                rounds += 100
            }
            stop.store(true, ordering: .relaxed)
            writer.join()
            if rounds == 0 { exit(3) }
        }
    }

    @Test func reEvaluatingAPropertyByNameNeverReadsAnotherBeingWritten() async {
        await #expect(processExitsWith: .success) {
            let node = Node()
            let observer = TestObserver()
            let count = Atomic<Int>(0)
            guard
                (try? observer.kvoController.observe(node, keyPath: "b") { _, _, _ in
                    count.wrappingAdd(1, ordering: .relaxed)
                }) != nil
            else { exit(4) }
            let stop = Atomic<Bool>(false)
            let writer = TestThread {  // the only writer of `items`, declared before `b`
                var value = 0
                while !stop.load(ordering: .relaxed) {
                    value &+= 1
                    node.items = [value, value &+ 1]
                }
            }
            let deadline = Date().addingTimeInterval(StringKeyPathRaceTests.seconds)
            var sets = 0
            while Date() < deadline {
                for _ in 0..<1_000 {
                    sets += 1
                    node.b = sets  // each set re-evaluates "b"
                }
            }
            stop.store(true, ordering: .relaxed)
            writer.join()
            if count.load(ordering: .relaxed) != sets { exit(5) }
        }
    }

    @Test func aStringKeyPathReportsReadsOfExactlyItsComponents() throws {
        // Tracked reads of `[kvoKeyPath:]` are exactly its components, in order.
        let person = Person()
        let reads = ReadProbe.reads(of: \Person.[kvoKeyPath: "address.city"], on: person)
        let names = reads.map { access -> String in
            guard case .field(let offset) = access.slot, let type = access.objectType else { return "?" }
            return ObservedFields.name(at: offset, in: type) ?? "?"
        }
        #expect(names == ["address", "city"])
    }
}
