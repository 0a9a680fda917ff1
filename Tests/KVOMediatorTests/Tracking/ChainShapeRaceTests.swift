import Foundation
import Synchronization
import Testing

@testable import KVOMediator

/// `ChainShapeCache` keeps one shape per key path object, shared by every registration of the same
/// literal in the process: one thread evaluating the literal with a broken chain (another shape) must
/// never make a registration on another thread, evaluating the whole chain, miss that it is one.
@Suite struct ChainShapeRaceTests {
    /// How long the race runs at most: `KVO_RACE_SECONDS`, or 3 s (it stops at the first wrong record).
    static var seconds: Double {
        ProcessInfo.processInfo.environment["KVO_RACE_SECONDS"].flatMap(Double.init) ?? 3
    }

    /// The key path both threads register: one literal, so one key path object (instantiated once).
    static func nextSongs() -> KeyPath<PlaylistShelf, [String]?> { \.next?.songs }

    @Test("A chain ending at an array keeps its kinds while another thread evaluates it broken")
    func chainKeepsItsKindsWhileAnotherThreadSeesAnotherShape() {
        let keyPath = Self.nextSongs()
        let stop = Atomic<Bool>(false)
        // Other registrations of the same literal on another thread, evaluating it with other shapes
        // (a broken chain, say) as fast as they can: each records its shape, replacing the last one.
        let other = TestThread {
            var shape: UInt = 1
            while !stop.load(ordering: .relaxed) {
                shape = shape &+ 1
                _ = ChainShapeCache.shared.record(false, of: Self.nextSongs(), shape: shape, leafProperty: nil)
            }
        }
        let shelf = PlaylistShelf()
        let observer = TestObserver()
        let kinds = Mutex<[KVOChangeKind]>([])
        observer.kvoController.observe(shelf, keyPath: keyPath, options: []) { _, _, change in
            kinds.withLock { $0.append(change.kind) }
        }
        let playlists = [Playlist(), Playlist()]
        let deadline = Date().addingTimeInterval(Self.seconds)
        var rounds = 0
        var wrong: [KVOChangeKind] = []
        while wrong.isEmpty, Date() < deadline {
            for _ in 0..<200 {
                // Each set re-evaluates the chain (the cache asked, and recorded when it had another shape).
                let playlist = playlists[rounds & 1]
                shelf.next = playlist
                kinds.withLock { $0.removeAll() }
                playlist.mutableArrayValue(for: \.songs).append("a")
                _ = playlist.mutableArrayValue(for: \.songs).removeLast()
                let received = kinds.withLock { $0 }
                if received != [.insertion, .removal] {
                    wrong = received
                    break
                }
                rounds += 1
            }
        }
        stop.store(true, ordering: .relaxed)
        other.join()
        observer.kvoController.unobserveAll()
        #expect(wrong.isEmpty, "round \(rounds): received \(wrong), expected [insertion, removal]")
        #expect(rounds > 0 || !wrong.isEmpty)
    }
}
