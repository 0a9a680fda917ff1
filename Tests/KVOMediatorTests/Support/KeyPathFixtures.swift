import KVOMediator

/// A chain: person → address → street.
final class Person: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var name: String
    @Observed var address: Address
    @Observed var secondHome: Address?
    @Observed var nickname = ""
    @Observed var usesNickname = false
    var plainNote = ""

    /// Reads `nickname` or `name`, depending on `usesNickname`: its dependencies change with it.
    var displayName: String { usesNickname ? nickname : name }

    init(name: String = "Ada", city: String = "London") {
        self.name = name
        self.address = Address(city: city)
    }
}

final class Address: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var city: String
    @Observed var street = Street()

    init(city: String) {
        self.city = city
    }
}

final class Street: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var number = 1
}

/// A file being downloaded: `progress` is computed from two observed properties.
final class DownloadTask: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var receivedBytes = 0
    @Observed var totalBytes = 100
    var progress: Double { Double(receivedBytes) / Double(totalBytes) }
}

/// A summary behind a cache: once the cache is warm, reading it reads nothing observable.
class CachedReport: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var entries: [Int] = []
    private var cached: String?

    var summary: String {
        if let cached { return cached }
        let made = "\(entries.count) entries"
        cached = made
        return made
    }

    func add(_ entry: Int) {
        cached = nil
        entries.append(entry)
    }

    /// Declares nothing; a subclass overrides it.
    class func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        []
    }
}

/// The same report, declaring what tracking cannot see behind the cache.
final class DeclaredReport: CachedReport {
    override class func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        keyPath == \DeclaredReport.summary ? [\DeclaredReport.entries] : []
    }
}

/// Collections: an array and a set.
final class Playlist: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var songs: [String] = []
    @Observed var tags: Set<String> = []
    var songCount: Int { songs.count }
}

/// Arrays of strings and of numbers, changed through proxies on one thread, or on one thread each.
final class SongList: KeyValueObservable, @unchecked Sendable {  // changed by one thread at a time
    let kvoRegistrar = KVORegistrar()
    @Observed var songs: [String] = []
}

final class NumberList: KeyValueObservable, @unchecked Sendable {  // changed by one thread at a time
    let kvoRegistrar = KVORegistrar()
    @Observed var entries: [Int] = []
}

/// A playlist whose collections announce their changes by hand (automatic notification off).
class ManualPlaylist: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed(automaticallyNotifies: false) var songs: [String] = []
    @Observed(automaticallyNotifies: false) var tags: Set<String> = []
}

/// A subclass: its proxies' key paths are rooted at it, not at the class that declares the storage.
final class ManualSubPlaylist: ManualPlaylist {}

/// A label's text and count, read through a holder's link by computed properties that transform them.
final class ChainedLabel: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var text = ""
    @Observed var count = 0
}

/// `upperText` and `doubledCount` read `label`, then its `text` or `count`: the shape of a chain.
final class LabelHolder: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var label: ChainedLabel? = ChainedLabel()

    var upperText: String? { label?.text.uppercased() }
    var doubledCount: Int? { label.map { $0.count * 2 } }
}

/// What a link may be declared as: a protocol, not a class (`TitledHolder.link`).
protocol Titled: KeyValueObservable {
    var title: String { get }
}

final class TitledItem: Titled {
    let kvoRegistrar = KVORegistrar()
    @Observed var title = ""
}

/// A link declared as a protocol existential, and one declared as a value type.
final class TitledHolder: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var link: (any Titled)?
    @Observed var count: Int? = nil
}
