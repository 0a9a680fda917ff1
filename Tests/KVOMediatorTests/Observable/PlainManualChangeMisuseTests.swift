import Foundation
import KVOMediator
import Testing

/// A plain `didChangeValue(for:)` without its `willChangeValue(for:)` (none, or one of another key path)
/// announces nothing and is reported to the object, as the collection forms are.
@Suite struct PlainManualChangeMisuseTests {
    @Test func aDidChangeValueWithoutWillChangeValueIsReportedObservedOrNot() throws {
        for observed in [false, true] {
            let list = TrackList(tracks: ["a"])
            let observer = TestObserver()
            let recorder = Recorder<[String]>()
            if observed {
                observer.kvoController.observe(list, keyPath: \.extras, options: [.old, .new, .prior]) { _, _, change in
                    recorder.append(change)
                }
            }
            list.didChangeValue(for: \.extras)
            #expect(recorder.count == 0)
            let error = try #require(list.errors.values.only, "observed: \(observed)")
            #expect(error.reason == .unmatchedDidChange)
            #expect(error.typeName == "TrackList")
            #expect(error.keyPath == "extras")
            #expect(
                error.message
                    == "KVOMediator: didChangeValue(for: extras) on TrackList has no matching willChangeValue(for: extras) "
                    + "on this thread, so nothing was announced. Call willChangeValue(for: extras) before changing the "
                    + "storage, on the same thread, or wrap the change in withChange(…) { … }, which pairs them."
            )
            withExtendedLifetime(observer) {}
        }
    }

    @Test func aDidChangeValueOfAnotherKeyPathIsReportedNamingThePendingWill() throws {
        let list = TrackList(tracks: ["a"])
        let observer = TestObserver()
        let recorder = Recorder<[String]>()
        observer.kvoController.observe(list, keyPath: \.extras, options: [.old, .new, .prior]) { _, _, change in
            recorder.append(change)
        }
        list.willChangeValue(for: \.extras)
        list.extras = ["b"]  // announced by hand
        list.didChangeValue(for: \.tracks)
        // Only the prior record of the will: the did of another key path ends nothing.
        #expect(recorder.changes == [change(\TrackList.extras, old: [], prior: true)])
        let error = try #require(list.errors.values.only)
        #expect(error.reason == .unmatchedDidChange)
        // (`tracks` has custom storage, which has no name of its own: the error names it as printed.)
        let tracks = error.keyPath
        #expect(
            error.message.contains(
                "didChangeValue(for: \(tracks)) on TrackList has no matching willChangeValue(for: \(tracks))"
            )
        )
        #expect(error.message.contains("what this thread has pending on it is willChangeValue(for: extras)"))
        // The will of `extras` is still pending: its own did ends it and delivers.
        list.didChangeValue(for: \.extras)
        #expect(
            recorder.changes == [
                change(\TrackList.extras, old: [], prior: true), change(\TrackList.extras, old: [], new: ["b"]),
            ]
        )
        #expect(list.errors.values.count == 1)
    }

    @Test func aMatchedPairReportsNothingWhetherObservedOrNot() {
        let list = TrackList(tracks: ["a"])
        list.tracks = ["b"]
        list.withChange(of: \.extras) {}
        let observer = TestObserver()
        observer.kvoController.observe(list, keyPath: \.tracks) { _, _, _ in }
        list.tracks = ["c"]
        // Nested pairs of two key paths, ended in either order.
        list.willChangeValue(for: \.tracks)
        list.willChangeValue(for: \.extras)
        list.didChangeValue(for: \.tracks)
        list.didChangeValue(for: \.extras)
        #expect(list.errors.values.isEmpty)
        withExtendedLifetime(observer) {}
    }

    @Test func aSecondDidChangeValueIsReported() {
        let list = TrackList(tracks: ["a"])
        list.willChangeValue(for: \.extras)
        list.didChangeValue(for: \.extras)
        list.didChangeValue(for: \.extras)
        #expect(list.errors.values.map(\.reason) == [.unmatchedDidChange])
    }
}
