import Foundation
import KVOMediator
import Testing

/// Unbalanced or mismatched collection announcements, and indexes out of range, are reported to the
/// object with a message naming the call, the type and the fix; nothing is delivered wrongly.
@Suite struct ManualChangeMisuseTests {
    /// A list of `["a", "b"]` and a recorder of its `tracks` changes (with prior records).
    private func observedList() -> (TrackList, TestObserver, Recorder<[String]>) {
        let list = TrackList(tracks: ["a", "b"], labels: ["rock"])
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(list, keyPath: \.tracks, options: [.old, .new, .prior]) { _, _, change in
            recorder.append(change)
        }
        return (list, observer, recorder)
    }

    @Test func aDidChangeWithoutWillChangeIsReportedAndDeliversNothing() throws {
        let (list, observer, recorder) = observedList()
        defer { withExtendedLifetime(observer) {} }
        list.didChange(.insertion, at: IndexSet(integer: 1), for: \.tracks)
        #expect(recorder.count == 0)
        let error = try #require(list.errors.values.only)
        #expect(error.reason == .unmatchedDidChange)
        #expect(error.typeName == "TrackList")
        #expect(error.message.contains("didChange(.insertion, at: [1], for: \(error.keyPath)) on TrackList"))
        #expect(error.message.contains("has no matching willChange"))
        #expect(error.message.contains("withChange("))
    }

    @Test func aDidChangeOfAnotherKindIsReportedAndOnlyThePriorRecordWasDelivered() throws {
        let (list, observer, recorder) = observedList()
        defer { withExtendedLifetime(observer) {} }
        list.willChange(.removal, at: IndexSet(integer: 0), for: \.tracks)
        list.editSilently { $0[0] = "A" }
        list.didChange(.replacement, at: IndexSet(integer: 0), for: \.tracks)
        #expect(
            recorder.changes == [
                change(\TrackList.tracks, kind: .removal, old: ["a"], indexes: IndexSet(integer: 0), prior: true)
            ]
        )
        let error = try #require(list.errors.values.only)
        #expect(error.reason == .mismatchedChange)
        #expect(error.message.contains("didChange(.replacement, at: [0]"))
        #expect(error.message.contains("willChange(.removal, at: [0]"))
        // The willChange was ended with it: a second didChange has nothing to match.
        list.didChange(.removal, at: IndexSet(integer: 0), for: \.tracks)
        #expect(list.errors.values.map(\.reason) == [.mismatchedChange, .unmatchedDidChange])
        #expect(recorder.count == 1)
    }

    @Test func aDidChangeAtOtherIndexesIsReported() {
        let (list, observer, recorder) = observedList()
        defer { withExtendedLifetime(observer) {} }
        list.willChange(.replacement, at: IndexSet(integer: 0), for: \.tracks)
        list.didChange(.replacement, at: IndexSet(integer: 1), for: \.tracks)
        #expect(recorder.changes.map(\.isPrior) == [true])
        #expect(list.errors.values.map(\.reason) == [.mismatchedChange])
    }

    @Test func aDidChangeOfAnotherKeyPathOrObjectIsUnmatchedAndLeavesTheWillChangePending() {
        let (list, observer, recorder) = observedList()
        defer { withExtendedLifetime(observer) {} }
        let other = TrackList(tracks: ["x", "y"])
        list.willChange(.insertion, at: IndexSet(integer: 2), for: \.tracks)
        list.didChange(.insertion, at: IndexSet(integer: 2), for: \.extras)
        other.didChange(.insertion, at: IndexSet(integer: 2), for: \.tracks)
        list.editSilently { $0.append("c") }
        list.didChange(.insertion, at: IndexSet(integer: 2), for: \.tracks)
        #expect(list.errors.values.map(\.reason) == [.unmatchedDidChange])
        #expect(other.errors.values.map(\.reason) == [.unmatchedDidChange])
        #expect(
            recorder.changes == [
                change(\TrackList.tracks, kind: .insertion, indexes: IndexSet(integer: 2), prior: true),
                change(\TrackList.tracks, kind: .insertion, new: ["c"], indexes: IndexSet(integer: 2)),
            ]
        )
    }

    @Test func nestedAnnouncementsEndedOutOfOrderAreBothReported() {
        let (list, observer, recorder) = observedList()
        defer { withExtendedLifetime(observer) {} }
        list.willChange(.replacement, at: IndexSet(integer: 0), for: \.tracks)
        list.willChange(.replacement, at: IndexSet(integer: 1), for: \.tracks)
        list.didChange(.replacement, at: IndexSet(integer: 0), for: \.tracks)
        list.didChange(.replacement, at: IndexSet(integer: 1), for: \.tracks)
        #expect(list.errors.values.map(\.reason) == [.mismatchedChange, .mismatchedChange])
        #expect(recorder.changes.allSatisfy { $0.isPrior })
        #expect(recorder.count == 2)
    }

    @Test func anIndexedDidChangeDoesNotEndAPlainWillChange() throws {
        let (list, observer, recorder) = observedList()
        defer { withExtendedLifetime(observer) {} }
        list.willChangeValue(for: \.tracks)
        list.didChange(.insertion, at: IndexSet(integer: 0), for: \.tracks)
        let error = try #require(list.errors.values.only)
        #expect(error.reason == .mismatchedChange)
        #expect(error.message.contains("willChangeValue(for: "))
        #expect(
            recorder.changes.map(RecordFields.init) == [
                RecordFields(change(\TrackList.tracks, old: ["a", "b"], prior: true))
            ]
        )
    }

    @Test func aPlainDidChangeIsReportedAndLeavesAPendingIndexedWillChangeToItsOwnDidChange() throws {
        let (list, observer, recorder) = observedList()
        defer { withExtendedLifetime(observer) {} }
        list.willChange(.removal, at: IndexSet(integer: 0), for: \.tracks)
        list.didChangeValue(for: \.tracks)
        list.editSilently { $0.remove(at: 0) }
        list.didChange(.removal, at: IndexSet(integer: 0), for: \.tracks)
        let keyPath = \TrackList.tracks
        #expect(
            recorder.changes == [
                change(keyPath, kind: .removal, old: ["a"], indexes: IndexSet(integer: 0), prior: true),
                change(keyPath, kind: .removal, old: ["a"], indexes: IndexSet(integer: 0)),
            ]
        )
        let error = try #require(list.errors.values.only)
        #expect(error.reason == .unmatchedDidChange)
        #expect(error.message.contains("didChangeValue(for: \(error.keyPath)) on TrackList has no matching"))
        #expect(
            error.message.contains(
                "what this thread has pending on it is willChange(.removal, at: [0], for: \(error.keyPath))"
            )
        )
    }

    /// A custom setter's own will/did pair inside an indexed pair: each pairs with its own, with or
    /// without observers; observers get the setter's setting, then the insertion (as Cocoa's would).
    @Test func aCustomSettersPairInsideAnIndexedPairPairsWithItsOwn() {
        let quiet = TrackList(tracks: ["a"])
        quiet.withChange(.insertion, at: IndexSet(integer: 1), of: \.tracks) { quiet.tracks.append("b") }
        #expect(quiet.errors.values.isEmpty)
        #expect(quiet.tracks == ["a", "b"])
        let (list, observer, recorder) = observedList()
        defer { withExtendedLifetime(observer) {} }
        list.withChange(.insertion, at: IndexSet(integer: 2), of: \.tracks) { list.tracks.append("c") }
        let keyPath = \TrackList.tracks
        #expect(
            recorder.changes == [
                change(keyPath, kind: .insertion, indexes: IndexSet(integer: 2), prior: true),
                change(keyPath, old: ["a", "b"], prior: true),
                change(keyPath, old: ["a", "b"], new: ["a", "b", "c"]),
                change(keyPath, kind: .insertion, new: ["c"], indexes: IndexSet(integer: 2)),
            ]
        )
        #expect(list.errors.values.isEmpty)
    }

    @Test func indexesOutOfRangeBeforeTheChangeAreReportedAndTheDidChangeEndsSilently() throws {
        let (list, observer, recorder) = observedList()
        defer { withExtendedLifetime(observer) {} }
        list.willChange(.removal, at: IndexSet(integer: 2), for: \.tracks)
        list.didChange(.removal, at: IndexSet(integer: 2), for: \.tracks)
        list.willChange(.insertion, at: IndexSet([1, 4]), for: \.tracks)
        list.didChange(.insertion, at: IndexSet([1, 4]), for: \.tracks)
        list.willChange(.setting, at: IndexSet(integer: 0), for: \.tracks)
        list.didChange(.setting, at: IndexSet(integer: 0), for: \.tracks)
        #expect(recorder.count == 0)
        let errors = list.errors.values
        #expect(errors.map(\.reason) == [.invalidIndexes, .invalidIndexes, .invalidIndexes])
        #expect(errors[0].message.contains("index 2 is out of range of the array's 2 elements before the change"))
        #expect(errors[1].message.contains("index 4 is beyond the end"))
        #expect(errors[2].message.contains("a setting has no indexes"))
        #expect(list.tracks == ["a", "b"])
    }

    @Test func indexesOutOfRangeAfterAnInsertionAreReportedInsteadOfACrash() throws {
        let (list, observer, recorder) = observedList()
        defer { withExtendedLifetime(observer) {} }
        list.willChange(.insertion, at: IndexSet(integer: 2), for: \.tracks)
        // The storage was not changed as announced: there is no element at 2.
        list.didChange(.insertion, at: IndexSet(integer: 2), for: \.tracks)
        #expect(
            recorder.changes == [
                change(\TrackList.tracks, kind: .insertion, indexes: IndexSet(integer: 2), prior: true)
            ]
        )
        let error = try #require(list.errors.values.only)
        #expect(error.reason == .invalidIndexes)
        #expect(error.message.contains("index 2 is out of range of the array's 2 elements after the change"))
    }

    @Test func aSetDidChangeWithOtherObjectsOrMutationIsReported() {
        let list = TrackList(labels: ["rock"])
        let observer = TestObserver()
        let recorder = Recorder<Set<String>>()
        observer.kvoController.observe(list, keyPath: \.labels, options: [.new]) { _, _, change in
            recorder.append(change)
        }
        list.willChange(.union, using: ["jazz"], for: \.labels)
        list.didChange(.union, using: ["pop"], for: \.labels)
        list.willChange(.union, using: ["jazz"], for: \.labels)
        list.didChange(.set, using: ["jazz"], for: \.labels)
        list.didChange(.minus, using: ["rock"], for: \.labels)
        #expect(recorder.count == 0)
        let errors = list.errors.values
        #expect(errors.map(\.reason) == [.mismatchedChange, .mismatchedChange, .unmatchedDidChange])
        #expect(errors[0].message.contains("didChange(.union, using: [\"pop\"]"))
        #expect(errors[0].message.contains("willChange(.union, using: [\"jazz\"]"))
    }

    @Test func theDefaultHandlerWritesTheMessageToStandardError() async throws {
        let result = try await #require(
            processExitsWith: .success,
            observing: [\.standardErrorContent]
        ) {
            let playlist = ManualPlaylist()
            playlist.didChange(.removal, at: IndexSet(integer: 0), for: \.songs)
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("KVOMediator: didChange(.removal, at: [0], for: songs) on ManualPlaylist"))
    }
}
