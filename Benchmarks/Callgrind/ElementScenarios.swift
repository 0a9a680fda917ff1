import KVOMediator

// Issue 36's element-wise observation (`observe(_:each:keyPath:)`), one observer (a block with [.new, .old])
// of `plays` of every track of an album:
// - element_change_10 / _10k: one track's `plays` set, in an album of 10 / 10,000 tracks (the same track
//   each time, its index found from the members);
// - element_append_remove_10 / _10k: a track appended through `mutableArrayValue(for:)` and removed again
//   (two membership changes, each with its record, and the track's registration made and ended).

final class BenchTrack: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var plays = 0
}

final class BenchAlbum: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var tracks: [BenchTrack] = []
}

func elementScenarios() -> [Scenario] {
    var scenarios: [Scenario] = []
    for (suffix, count) in [("10", 10), ("10k", 10_000)] {
        scenarios += [
            Scenario("element_change_\(suffix).ours") { iterations in
                let album = BenchAlbum()
                album.tracks = (0..<count).map { _ in BenchTrack() }
                let track = album.tracks[count / 2]
                let received = Received()
                let watcher = Watcher()
                watcher.kvoController.observe(album, each: \.tracks, keyPath: \.plays, options: [.new, .old]) {
                    _,
                    _,
                    change in received.record(change.newValue?.first)
                }
                forEachNewValue(iterations) { track.plays = $0 }
                withExtendedLifetime(watcher) { received.expect(iterations) }
            },
            Scenario("element_append_remove_\(suffix).ours") { iterations in
                let album = BenchAlbum()
                album.tracks = (0..<count).map { _ in BenchTrack() }
                let received = Received()
                let watcher = Watcher()
                watcher.kvoController.observe(album, each: \.tracks, keyPath: \.plays, options: [.new, .old]) {
                    _,
                    _,
                    change in received.record(change.indexes?.first)
                }
                let proxy = album.mutableArrayValue(for: \.tracks)
                let track = BenchTrack()
                forEachNewValue(iterations) { _ in
                    proxy.append(track)
                    _ = proxy.removeLast()
                }
                withExtendedLifetime(watcher) { received.expect(2 * iterations) }
            },
        ]
    }
    return scenarios
}
