import Foundation
import Testing

@testable import KVOMediator

/// `LockProtected`: a value reached only under its lock, as the controller's table and the caches keep
/// theirs.
@Suite struct LockProtectedTests {
    @Test func eightThreadsUpdatingOneDictionaryLoseNoUpdate() {
        let counts = LockProtected([String: Int]())
        let threads = (0..<8).map { thread in
            TestThread {
                for index in 0..<5_000 {
                    counts.withLock { $0["key \(index % 4)", default: 0] += 1 }
                    counts.withLock { $0["thread \(thread)", default: 0] += 1 }
                }
            }
        }
        for thread in threads { thread.join() }
        let final = counts.withLock { $0 }
        #expect((0..<4).map { final["key \($0)"] } == [10_000, 10_000, 10_000, 10_000])
        #expect((0..<8).map { final["thread \($0)"] } == Array(repeating: 5_000, count: 8))
    }

    @Test func theBodysResultComesBackAndItsChangesStay() {
        let state = LockProtected((table: [1, 2, 3], flag: false))
        let removed = state.withLock { state -> Int in
            state.flag = true
            return state.table.removeFirst()
        }
        #expect(removed == 1)
        #expect(state.withLock { $0.table } == [2, 3])
        #expect(state.withLock { $0.flag })
    }

    #if DEBUG
    @Test func takingALowerLevelLockInsideStopsADebugBuild() async {
        await #expect(processExitsWith: .failure) {
            let controllerLevel = LockProtected(0, level: .controller)
            let leaf = LockProtected(0, level: .leaf)
            leaf.withLock { _ in controllerLevel.withLock { $0 += 1 } }
        }
    }
    #endif
}
