import Foundation
import Testing

@testable import KVOMediator

/// A record's stored parts: its indexes (one index kept without an `IndexSet` until read) and
/// `isPrior` share a word, and each is read and written independently of the other.
@Suite struct KVOChangeTests {
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
        var change = KVOChange<[String]>(
            kind: .insertion,
            oldValue: nil,
            newValue: ["x"],
            indexes: .single(41),
            isPrior: false,
            holder: _KeyPathHolder(\Playlist.songs)
        )
        #expect(change.indexes == IndexSet(integer: 41))
        change.isPrior = true
        #expect(change.indexes == IndexSet(integer: 41))
        #expect(change.isPrior)
        change.isPrior = false
        #expect(change.indexes == IndexSet(integer: 41))
        #expect(!change.isPrior)
    }

    @Test func settingTheIndexesReplacesOneIndexAndKeepsThePriorFlag() {
        var change = KVOChange<[String]>(
            kind: .insertion,
            oldValue: nil,
            newValue: ["x"],
            indexes: .single(0),
            isPrior: true,
            holder: _KeyPathHolder(\Playlist.songs)
        )
        change.indexes = IndexSet([2, 3])
        #expect(change.indexes == IndexSet([2, 3]))
        #expect(change.isPrior)
        change.indexes = nil
        #expect(change.indexes == nil)
        #expect(change.isPrior)
    }

    @Test func recordsWithOneIndexAndWithTheSameIndexSetAreEqual() {
        let single = KVOChange<[String]>(
            kind: .insertion,
            oldValue: nil,
            newValue: ["x"],
            indexes: .single(3),
            isPrior: false,
            holder: _KeyPathHolder(\Playlist.songs)
        )
        let set = KVOChange<[String]>(
            kind: .insertion,
            newValue: ["x"],
            indexes: IndexSet(integer: 3),
            keyPath: \Playlist.songs
        )
        #expect(single == set)
        #expect(
            single
                != KVOChange<[String]>(
                    kind: .insertion,
                    newValue: ["x"],
                    indexes: IndexSet(integer: 4),
                    keyPath: \Playlist.songs
                )
        )
    }
}
