import Foundation
import KVOMediator
import Testing

/// Every set mutation, through the set proxy and announced by hand (Cocoa's set mutations), has
/// Cocoa's kind with exactly the members that changed, and a mutation that changes nothing announces
/// nothing.
@Suite struct SetMutationTests {
    /// A playlist tagged `["rock", "jazz"]`, observed with `options`.
    private func observedTags(
        options: KVOOptions = [.old, .new]
    ) -> (Playlist, TestObserver, Recorder<Set<String>>) {
        let playlist = Playlist()
        playlist.tags = ["rock", "jazz"]
        let observer = TestObserver()
        let recorder = Recorder<Set<String>>()
        observer.kvoController.observe(playlist, keyPath: \.tags, options: options) { _, _, change in
            recorder.append(change)
        }
        return (playlist, observer, recorder)
    }

    @Test func proxyMutationsThatChangeNothingAnnounceNothing() {
        let (playlist, observer, recorder) = observedTags(options: [.old, .new, .prior])
        defer { withExtendedLifetime(observer) {} }
        let tags = playlist.mutableSetValue(for: \.tags)
        tags.insert("rock")
        tags.formUnion(["rock", "jazz"])
        tags.remove("pop")
        tags.subtract(["pop", "folk"])
        tags.formIntersection(["rock", "jazz", "pop"])
        tags.replaceAll(with: ["jazz", "rock"])
        #expect(recorder.count == 0)
        let empty = Playlist()
        let emptyRecorder = Recorder<Set<String>>()
        observer.kvoController.observe(empty, keyPath: \.tags, options: [.old, .new]) { _, _, change in
            emptyRecorder.append(change)
        }
        empty.mutableSetValue(for: \.tags).removeAll()
        empty.mutableSetValue(for: \.tags).replaceAll(with: [])
        #expect(emptyRecorder.count == 0)
        #expect(playlist.tags == ["rock", "jazz"])
    }

    @Test func replaceAllIsAReplacementOfTheMembersThatGoByThoseThatArrive() {
        let (playlist, observer, recorder) = observedTags(options: [.old, .new, .prior])
        defer { withExtendedLifetime(observer) {} }
        let tags = playlist.mutableSetValue(for: \.tags)
        tags.replaceAll(with: ["jazz", "soul"])
        tags.replaceAll(with: [])
        tags.replaceAll(with: ["folk"])
        let keyPath = \Playlist.tags
        #expect(
            recorder.changes == [
                change(keyPath, kind: .replacement, old: ["rock"], prior: true),
                change(keyPath, kind: .replacement, old: ["rock"], new: ["soul"]),
                change(keyPath, kind: .replacement, old: ["jazz", "soul"], prior: true),
                change(keyPath, kind: .replacement, old: ["jazz", "soul"], new: []),
                change(keyPath, kind: .replacement, old: [], prior: true),
                change(keyPath, kind: .replacement, old: [], new: ["folk"]),
            ]
        )
        #expect(playlist.tags == ["folk"])
    }

    @Test func proxyMutationsCarryExactlyTheMembersThatChanged() {
        let (playlist, observer, recorder) = observedTags()
        defer { withExtendedLifetime(observer) {} }
        let tags = playlist.mutableSetValue(for: \.tags)
        tags.formUnion(["rock", "pop"])  // rock jazz pop
        tags.subtract(["jazz", "folk"])  // rock pop
        tags.formIntersection(["pop", "folk"])  // pop
        tags.insert("soul")  // pop soul
        tags.remove("pop")  // soul
        tags.removeAll()
        let keyPath = \Playlist.tags
        #expect(
            recorder.changes == [
                change(keyPath, kind: .insertion, new: ["pop"]),
                change(keyPath, kind: .removal, old: ["jazz"]),
                change(keyPath, kind: .removal, old: ["rock"]),
                change(keyPath, kind: .insertion, new: ["soul"]),
                change(keyPath, kind: .removal, old: ["pop"]),
                change(keyPath, kind: .removal, old: ["soul"]),
            ]
        )
        #expect(recorder.changes.allSatisfy { $0.indexes == nil })
    }

    @Test func setMutationsOfCustomStorageHaveCocoasKinds() {
        let list = TrackList(labels: ["rock", "jazz"])
        let observer = TestObserver()
        let recorder = Recorder<Set<String>>()
        observer.kvoController.observe(list, keyPath: \.labels, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        list.mutateLabels(.union, using: ["jazz", "pop"])  // rock jazz pop
        list.mutateLabels(.minus, using: ["rock", "folk"])  // jazz pop
        list.mutateLabels(.intersect, using: ["pop", "folk"])  // pop
        list.mutateLabels(.set, using: ["pop", "soul"])  // pop soul
        let keyPath = \TrackList.labels
        #expect(
            recorder.changes == [
                change(keyPath, kind: .insertion, new: ["pop"]),
                change(keyPath, kind: .removal, old: ["rock"]),
                change(keyPath, kind: .removal, old: ["jazz"]),
                change(keyPath, kind: .replacement, old: [], new: ["soul"]),
            ]
        )
        #expect(list.labels == ["pop", "soul"])
        #expect(list.errors.values.isEmpty)
    }

    @Test func setMutationsByHandThatChangeNothingAnnounceNothing() {
        let list = TrackList(labels: ["rock"])
        let observer = TestObserver()
        let recorder = Recorder<Set<String>>()
        observer.kvoController.observe(list, keyPath: \.labels, options: [.old, .new, .prior]) { _, _, change in
            recorder.append(change)
        }
        list.mutateLabels(.union, using: ["rock"])
        list.mutateLabels(.minus, using: ["pop"])
        list.mutateLabels(.intersect, using: ["rock", "pop"])
        list.mutateLabels(.set, using: ["rock"])
        list.mutateLabels(.union, using: [])
        #expect(recorder.count == 0)
        #expect(list.errors.values.isEmpty)
    }

    /// For every combination of options and every mutation, the manual records equal the proxy's.
    @Test(arguments: 0..<16)
    func recordsEqualTheSetProxysForTheSameMutation(optionBits: Int) {
        let options = KVOOptions(rawValue: UInt(optionBits)).subtracting(.initial)
        let list = TrackList(labels: ["a", "b", "c"])
        let playlist = Playlist()
        playlist.tags = ["a", "b", "c"]
        let observer = TestObserver()
        let manual = Recorder<Set<String>>()
        let proxied = Recorder<Set<String>>()
        observer.kvoController.observe(list, keyPath: \.labels, options: options) { _, _, change in
            manual.append(change)
        }
        observer.kvoController.observe(playlist, keyPath: \.tags, options: options) { _, _, change in
            proxied.append(change)
        }
        let tags = playlist.mutableSetValue(for: \.tags)
        list.mutateLabels(.union, using: ["c", "d"])
        tags.formUnion(["c", "d"])
        list.mutateLabels(.minus, using: ["a", "x"])
        tags.subtract(["a", "x"])
        list.mutateLabels(.intersect, using: ["b", "c"])
        tags.formIntersection(["b", "c"])
        list.mutateLabels(.set, using: ["c", "e"])
        tags.replaceAll(with: ["c", "e"])
        #expect(manual.changes.map(RecordFields.init) == proxied.changes.map(RecordFields.init))
        #expect(manual.count == (options.contains(.prior) ? 8 : 4))
        #expect(list.labels == playlist.tags)
    }

    /// A chain and a string key path ending at an `@Observed(automaticallyNotifies: false)` set get the kind.
    @Test func chainsAndStringKeyPathsOfAManuallyAnnouncedSetGetTheKind() throws {
        let holder = ManualPlaylistHolder()
        let playlist = holder.playlist
        playlist.tags = ["rock"]
        let observer = TestObserver()
        let stringObserver = TestObserver()
        let chained = Recorder<Set<String>>()
        let strings = Recorder<Any>()
        observer.kvoController.observe(holder, keyPath: \.playlist.tags, options: [.old, .new]) { _, _, change in
            chained.append(change)
        }
        try stringObserver.kvoController.observe(holder, keyPath: "playlist.tags", options: [.old, .new]) {
            _,
            _,
            change in strings.append(change)
        }
        playlist.withChange(.set, using: ["jazz"], of: \.tags) { playlist.tags = ["jazz"] }
        func expected<Value>(_ keyPath: AnyKeyPath, _ wrap: (Set<String>) -> Value) -> [KVOChange<Value>] {
            [change(keyPath, kind: .replacement, old: wrap(["rock"]), new: wrap(["jazz"]))]
        }
        #expect(chained.changes == expected(\ManualPlaylistHolder.playlist.tags) { $0 })
        #expect(allMatch(strings.changes, expected(\ManualPlaylistHolder.[kvoKeyPath: "playlist.tags"]) { $0 }))
        withExtendedLifetime(stringObserver) {}
    }
}
