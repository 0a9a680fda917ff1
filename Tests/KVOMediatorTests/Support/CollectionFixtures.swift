import Foundation
import KVOMediator

/// Holds playlists, for chains that end at a collection: `\.playlist.songs`, `\.next?.songs`.
final class PlaylistShelf: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var playlist = Playlist()
    @Observed var next: Playlist?
}

/// Owns a shelf: a chain of three links that ends at a collection, `\.shelf.playlist.songs`.
final class PlaylistOwner: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var shelf = PlaylistShelf()
}

/// Whether untyped records (string key paths, `keyPaths:` forms) are exactly the typed ones expected,
/// in order: kind, old and new values, indexes, prior flag and key path (see `matches`).
func allMatch<Value: Equatable>(_ records: [KVOChange<Any>], _ expected: [KVOChange<Value>]) -> Bool {
    records.count == expected.count && zip(records, expected).allSatisfy { matches($0, $1) }
}

/// A playlist that a subclass can override.
class OpenPlaylist: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var songs: [String] = []
}

/// Overrides `songs` with a `didSet`: a proxy of `\.songs` on it must go through the override.
final class CountingPlaylist: OpenPlaylist {
    private(set) var didSetCount = 0
    override var songs: [String] {
        didSet { didSetCount += 1 }
    }
}

/// An element that runs `onDeinit` when it is released, to see the array a removal leaves.
final class Farewell {
    let onDeinit: () -> Void
    init(_ onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

/// An observed array of elements that say when they go.
final class FarewellList: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var items: [Farewell] = []
}

/// The address of an array's element storage: the same before and after a mutation made in place.
func bufferAddress<Element>(_ array: [Element]) -> UInt {
    array.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
}

/// Owns a shelf and the token of its own `\.shelf.playlist.songs`: its deinit ends that registration (a
/// chain whose observed object may go while a record of it is delivered).
final class SelfWatchingPlaylistOwner: KeyValueObservable, @unchecked Sendable {  // set up on one thread
    let kvoRegistrar = KVORegistrar()
    @Observed var shelf = PlaylistShelf()
    var token: KVOObservation?
}

/// A strong reference that a callback on any thread can let go of.
final class StrongSlot<Object: AnyObject>: @unchecked Sendable {  // `held` is guarded by `lock`
    private let lock = NSLock()
    private var held: Object?

    init(_ object: Object?) {
        held = object
    }

    var object: Object? {
        lock.withLock { held }
    }

    func clear() {
        let released = lock.withLock { () -> Object? in
            defer { held = nil }
            return held
        }
        withExtendedLifetime(released) {}
    }
}

/// A flag another object's getter reads.
final class Gate: KeyValueObservable, @unchecked Sendable {  // changed by one thread at a time
    let kvoRegistrar = KVORegistrar()
    @Observed var isOpen = true
}

/// An array in custom storage whose getter also reads another object's flag: not a key path through other
/// objects to their collection, so its proxy announces kinds and indexes itself.
final class GatedList: KeyValueObservable, @unchecked Sendable {  // changed by one thread at a time
    let kvoRegistrar = KVORegistrar()
    let gate = Gate()
    private var storage: [String] = []
    var items: [String] {
        get {
            accessValue(for: \.items)
            return gate.isOpen ? storage : []
        }
        set {
            willChangeValue(for: \.items)
            storage = newValue
            didChangeValue(for: \.items)
        }
    }
}
