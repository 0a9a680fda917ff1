import Foundation
import KVOMediator
import Testing

/// Indexed announcements pair per thread, as Cocoa's will/did do: two threads announcing on different
/// objects or on the same one each get exactly their own records, and a `didChange` never ends another
/// thread's `willChange`.
@Suite struct IndexedManualThreadTests {
    static let rounds = 2_000

    /// One round on a list: an insertion at 0, a replacement at 0, a union of one label.
    private static func round(_ list: TrackList, _ number: Int) {
        list.insertTracks(["t\(number)"], at: IndexSet(integer: 0))
        list.replaceTracks(at: IndexSet(integer: 0), with: ["r\(number)"])
        list.mutateLabels(.union, using: ["l\(number)"])
    }

    @Test func twoThreadsOnDifferentObjectsEachGetExactlyTheirRecords() {
        let lists = [TrackList(), TrackList()]
        let observer = TestObserver()
        let tracks = [Recorder<[String]>(), Recorder<[String]>()]
        let labels = [Recorder<Set<String>>(), Recorder<Set<String>>()]
        for index in 0..<2 {
            observer.kvoController.observe(lists[index], keyPath: \.tracks, options: [.old, .new, .prior]) {
                _,
                _,
                change in tracks[index].append(change)
            }
            observer.kvoController.observe(lists[index], keyPath: \.labels, options: [.new]) { _, _, change in
                labels[index].append(change)
            }
        }
        let threads = (0..<2).map { index in
            TestThread {
                for number in 0..<Self.rounds { Self.round(lists[index], number) }
            }
        }
        for thread in threads { thread.join() }
        for index in 0..<2 {
            let records = tracks[index].changes
            #expect(records.count == 4 * Self.rounds)
            let insertions = records.filter { $0.kind == .insertion && !$0.isPrior }
            let replacements = records.filter { $0.kind == .replacement && !$0.isPrior }
            #expect(insertions.map(\.newValue) == (0..<Self.rounds).map { ["t\($0)"] })
            #expect(replacements.map(\.oldValue) == (0..<Self.rounds).map { ["t\($0)"] })
            #expect(replacements.map(\.newValue) == (0..<Self.rounds).map { ["r\($0)"] })
            #expect(records.allSatisfy { $0.indexes == IndexSet(integer: 0) })
            #expect(labels[index].changes.map(\.newValue) == (0..<Self.rounds).map { ["l\($0)"] })
            #expect(lists[index].tracks.count == Self.rounds)
            #expect(lists[index].errors.values.isEmpty)
        }
    }

    @Test func twoThreadsOnTheSameObjectPairTheirOwnAnnouncements() {
        let list = TrackList()
        let observer = TestObserver()
        let tracks = Recorder<[String]>()
        let labels = Recorder<Set<String>>()
        observer.kvoController.observe(list, keyPath: \.tracks, options: [.new, .prior]) { _, _, change in
            tracks.append(change)
        }
        observer.kvoController.observe(list, keyPath: \.labels, options: [.new]) { _, _, change in
            labels.append(change)
        }
        let threads = (0..<2).map { index in
            TestThread {
                for number in 0..<Self.rounds { Self.round(list, number * 2 + index) }
            }
        }
        for thread in threads { thread.join() }
        let records = tracks.changes
        #expect(records.count(where: { $0.kind == .insertion && $0.isPrior }) == 2 * Self.rounds)
        #expect(records.count(where: { $0.kind == .insertion && !$0.isPrior }) == 2 * Self.rounds)
        #expect(records.count(where: { $0.kind == .replacement && $0.isPrior }) == 2 * Self.rounds)
        #expect(records.count(where: { $0.kind == .replacement && !$0.isPrior }) == 2 * Self.rounds)
        #expect(records.count == 8 * Self.rounds)
        // Every label is a union of one new member, announced once.
        #expect(Set(labels.changes.compactMap { $0.newValue?.first }).count == 2 * Self.rounds)
        #expect(labels.changes.allSatisfy { $0.kind == .insertion && $0.newValue?.count == 1 })
        #expect(list.tracks.count == 2 * Self.rounds)
        #expect(list.errors.values.isEmpty)
    }

    @Test func aDidChangeOnAnotherThreadDoesNotEndThisThreadsWillChange() {
        let list = TrackList(tracks: ["a"])
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(list, keyPath: \.tracks, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        list.willChange(.removal, at: IndexSet(integer: 0), for: \.tracks)
        TestThread { list.didChange(.removal, at: IndexSet(integer: 0), for: \.tracks) }.join()
        #expect(list.errors.values.map(\.reason) == [.unmatchedDidChange])
        #expect(recorder.count == 0)
        list.editSilently { $0.removeAll() }
        list.didChange(.removal, at: IndexSet(integer: 0), for: \.tracks)
        #expect(
            recorder.changes == [change(\TrackList.tracks, kind: .removal, old: ["a"], indexes: IndexSet(integer: 0))]
        )
        #expect(list.errors.values.count == 1)
    }
}
