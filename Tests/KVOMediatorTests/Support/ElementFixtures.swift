import KVOMediator
import Synchronization

/// An element of a collection whose property is observed element by element.
final class Track: KeyValueObservable, Hashable, @unchecked Sendable {  // changed by one thread at a time
    let kvoRegistrar = KVORegistrar()
    @Observed var title: String
    @Observed var tags: [String] = []
    /// Not observable: observing it element by element is an error.
    var plainName = ""

    init(_ title: String) {
        self.title = title
    }

    static func == (lhs: Track, rhs: Track) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A collection of tracks, as an array and as a set.
final class Album: KeyValueObservable, @unchecked Sendable {  // changed by one thread at a time
    let kvoRegistrar = KVORegistrar()
    @Observed var tracks: [Track] = []
    @Observed var favourites: Set<Track> = []

    init(_ titles: [String] = []) {
        tracks = titles.map(Track.init)
    }
}

/// Whether each delivery ran where it should (on its queue, say), in the order they ran.
final class PlaceLog: Sendable {
    private let places = Mutex<[Bool]>([])

    var values: [Bool] { places.withLock { $0 } }

    func append(_ wasRightPlace: Bool) { places.withLock { $0.append(wasRightPlace) } }
}
