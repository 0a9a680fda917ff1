import Benchmark
import KVOMediator

// Issue 36's element-wise observation: one observer (a block with [.new, .old]) of `plays` of every track
// of an album (see Callgrind/ElementScenarios.swift for the same rows counted):
// - element_change_10 / _10k: one track's `plays` set, in an album of 10 / 10,000 tracks;
// - element_append_remove_10 / _10k: a track appended through `mutableArrayValue(for:)` and removed again.

private let changeCount = 1_000

final class BenchTrack: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var plays = 0
}

final class BenchAlbum: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var tracks: [BenchTrack] = []
}

func registerElementBenchmarks() {
    for (suffix, count) in [("10", 10), ("10k", 10_000)] {
        register("element_change_\(suffix)", "ours", operations: changeCount, setup: observedAlbum(count)) {
            _,
            fixture in
            let track = fixture.model.tracks[count / 2]
            var value = fixture.counter
            for _ in 0..<changeCount {
                value &+= 1
                track.plays = value
            }
            fixture.counter = value
        }
        register("element_append_remove_\(suffix)", "ours", operations: changeCount, setup: observedAlbum(count)) {
            _,
            fixture in
            let proxy = fixture.model.mutableArrayValue(for: \.tracks)
            let track = BenchTrack()
            for _ in 0..<changeCount {
                proxy.append(track)
                blackHole(proxy.removeLast())
            }
        }
    }
}

private func observedAlbum(_ count: Int) -> Fixture<BenchAlbum> {
    let album = BenchAlbum()
    album.tracks = (0..<count).map { _ in BenchTrack() }
    let watcher = Watcher()
    watcher.kvoController.observe(album, each: \.tracks, keyPath: \.plays, options: [.new, .old]) { _, _, change in
        blackHole(change.newValue)
    }
    return Fixture(album, retaining: [watcher])
}
