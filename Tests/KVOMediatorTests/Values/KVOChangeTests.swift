import Foundation
import Synchronization
import Testing

@testable import KVOMediator

/// A record's stored parts: its indexes (one index kept without an `IndexSet` until read) and
/// `isPrior` share a word, and each is read and written independently of the other.
@Suite struct KVOChangeTests {
    /// An insertion of `["x"]` at `indexes`, as a proxy mutation makes it.
    private func insertion(at indexes: _KVOIndexes, isPrior: Bool = false) -> KVOChange<[String]> {
        KVOChange(
            kind: .insertion,
            oldValue: nil,
            newValue: ["x"],
            indexes: indexes,
            isPrior: isPrior,
            holder: _KeyPathHolder(\Playlist.songs)
        )
    }

    @Test func aRecordMadeWithIndexesGivesThemBackAndItsPriorFlag() {
        let indexes = IndexSet([1, 4, 5])
        let change = KVOChange<[String]>(
            kind: .removal,
            oldValue: ["a", "b", "c"],
            indexes: indexes,
            isPrior: true,
            keyPath: \Playlist.songs
        )
        #expect(change.indexes == indexes)
        #expect(change.isPrior)
        #expect(change.kind == .removal)
    }

    @Test func oneIndexKeptAsItIsReadsAsAnIndexSetAndSurvivesAChangeOfThePriorFlag() {
        var change = insertion(at: .single(41))
        #expect(change.indexes == IndexSet(integer: 41))
        change.isPrior = true
        #expect(change.indexes == IndexSet(integer: 41))
        #expect(change.isPrior)
        change.isPrior = false
        #expect(change.indexes == IndexSet(integer: 41))
        #expect(!change.isPrior)
    }

    @Test func settingTheIndexesReplacesOneIndexAndKeepsThePriorFlag() {
        var change = insertion(at: .single(0), isPrior: true)
        change.indexes = IndexSet([2, 3])
        #expect(change.indexes == IndexSet([2, 3]))
        #expect(change.isPrior)
        change.indexes = nil
        #expect(change.indexes == nil)
        #expect(change.isPrior)
    }

    @Test func recordsWithOneIndexAndWithTheSameIndexSetAreEqual() {
        let made = { (index: Int) in
            KVOChange<[String]>(
                kind: .insertion,
                newValue: ["x"],
                indexes: IndexSet(integer: index),
                keyPath: \Playlist.songs
            )
        }
        #expect(insertion(at: .single(3)) == made(3))
        #expect(insertion(at: .single(3)) != made(4))
    }

    @Test func eachRecordsIndexesAreItsOwnToChangeWhereverTheyComeFrom() {
        // (Indexes near the front come from shared sets; a copy changed by its owner is its own.)
        for index in [0, 5, 63, 64, 1_000] {
            let first = insertion(at: .single(index))
            var mine = first.indexes!
            mine.insert(index + 1)
            mine.remove(index)
            #expect(mine == IndexSet(integer: index + 1))
            #expect(first.indexes == IndexSet(integer: index))
            #expect(insertion(at: .single(index)).indexes == IndexSet(integer: index))
        }
    }

    @Test func recordsOfIndexesPastTheSharedOnesGiveTheirOwnInAnyOrderOnAnyThread() {
        // (Such an index is kept for the thread's next record of it: a record whose index is kept and one
        // whose is not must both give their own.)
        for index in [100, 100, 200, 100, 200, 200, 64, 100] {
            #expect(insertion(at: .single(index)).indexes == IndexSet(integer: index))
        }
        let wrong = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for round in 0..<2_000 {
                let index = 1_000 + thread * 10 + round % 3
                if insertion(at: .single(index)).indexes != IndexSet(integer: index) { wrong.withLock { $0 += 1 } }
            }
        }
        #expect(wrong.withLock { $0 } == 0)
    }
}
