// Cocoa KVO's usage, in Swift: NSKeyValueObservation tokens, an addObserver-style delegate, manual
// notification (custom storage, automatic notification turned off), collection mutations with indexes,
// dependent keys, and string key paths.
import Foundation
import KVOMediator
import Synchronization

/// An account whose balance is announced by hand: `automaticallyNotifiesObservers(forKey:)` returning false.
final class Account: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var owner = "Ada"
    @Observed(automaticallyNotifies: false) var balance = 0

    /// Posts several transactions and announces them as one change.
    func post(_ amounts: [Int]) {
        withChange(of: \.balance) {
            for amount in amounts {
                balance += amount
            }
        }
    }
}

/// Custom storage: the getter reports its read, the setter announces the change.
final class Thermometer: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    private var storedCelsius = 20.0

    var celsius: Double {
        get {
            accessValue(for: \.celsius)
            return storedCelsius
        }
        set {
            willChangeValue(for: \.celsius)
            storedCelsius = newValue
            didChangeValue(for: \.celsius)
        }
    }

    /// A dependent key with no `keyPathsForValuesAffectingFahrenheit`: the read of `celsius` is tracked.
    var fahrenheit: Double { celsius * 9 / 5 + 32 }
}

/// A summary behind a cache: once the cache is warm its getter reads nothing observable, so it declares
/// its dependency, as with `keyPathsForValuesAffectingValue(forKey:)`.
final class Report: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var entries: [Int] = []
    private var cachedSummary: String?

    var summary: String {
        if let cachedSummary { return cachedSummary }
        let summary = "\(entries.count) entries, total \(entries.reduce(0, +))"
        cachedSummary = summary
        return summary
    }

    func add(_ entry: Int) {
        cachedSummary = nil
        entries.append(entry)
    }

    static func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        keyPath == \Report.summary ? [\Report.entries] : []
    }
}

final class Playlist: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var songs: [String] = ["A Love Supreme"]
    @Observed var tags: Set<String> = ["jazz"]
    var songCount: Int { songs.count }
}

final class Person: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var name = "Ada"
    @Observed var address = Address()
}

final class Address: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var city = "London"
}

/// The `addObserver(_:forKeyPath:options:context:)` observer: one method receives every change.
final class AuditLog: KeyValueObserving {
    /// Cocoa's context idiom: the address of a private static variable tells this class's observations
    /// apart. Swift 6 needs `nonisolated(unsafe)` on it; only its address is ever used.
    nonisolated(unsafe) static var playlistContext = 0

    lazy var kvoController = KVOController(observer: self)
    private(set) var records: [KVOChange<Any>] = []
    private(set) var playlistRecords = 0

    func observeValue(
        forKeyPath keyPath: AnyKeyPath,
        of object: AnyObject,
        change: KVOChange<Any>,
        context: UnsafeMutableRawPointer?
    ) {
        print("   audit:", change)
        records.append(change)
        if withUnsafeMutablePointer(to: &AuditLog.playlistContext, { UnsafeMutableRawPointer($0) == context }) {
            playlistRecords += 1
        }
    }
}

/// Collects values from any thread, for handlers that run where the change happens.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])

    var values: [Value] { storage.withLock { $0 } }

    func append(_ value: Value) {
        storage.withLock { $0.append(value) }
    }
}

/// Stops the program with a message when an expectation fails.
func expect(_ condition: Bool, _ message: String, line: Int = #line) {
    guard !condition else { return }
    FileHandle.standardError.write(Data("CocoaKVOStyle: FAILED at line \(line): \(message)\n".utf8))
    exit(1)
}

print("observe(_:options:changeHandler:) returns a token, as NSKeyValueObservation:")
let account = Account()
let owners = Recorder<KVOChange<String>>()
var ownerToken: KVOObservation? = try account.observe(\.owner, options: [.initial, .old, .new]) { _, change in
    owners.append(change)
}
account.owner = "Grace"
ownerToken = nil  // releasing the token ends the observation
account.owner = "not seen"
for change in owners.values {
    print("  ", change)
}
expect(
    owners.values.map(\.oldValue) == [nil, "Ada"] && owners.values.map(\.newValue) == ["Ada", "Grace"],
    "the initial record has no old value; nothing after the token is released"
)

print("automaticallyNotifiesObservers = false: several changes announced as one, with .prior:")
let balances = Recorder<KVOChange<Int>>()
let balanceToken = try account.observe(\.balance, options: [.old, .new, .prior]) { _, change in
    balances.append(change)
}
account.balance = 5  // not announced: automatic notification is off
account.post([10, 20, 30])
for change in balances.values {
    print("  ", change)
}
expect(balances.values.count == 2, "one prior record and one change record: \(balances.values)")
expect(balances.values[0].isPrior && balances.values[0].oldValue == 5, "the prior record carries the old value")
expect(balances.values[1].oldValue == 5 && balances.values[1].newValue == 65, "then one change from 5 to 65")

print("custom storage with willChangeValue/didChangeValue, and a dependent key:")
let thermometer = Thermometer()
let temperatures = Recorder<String>()
let celsiusToken = try thermometer.observe(\.celsius, options: [.old, .new]) { _, change in
    temperatures.append("\(change.oldValue!)C -> \(change.newValue!)C")
}
let fahrenheitToken = try thermometer.observe(\.fahrenheit, options: [.new]) { _, change in
    temperatures.append("\(change.newValue!)F")
}
thermometer.celsius = 100
print("  ", temperatures.values)
expect(temperatures.values == ["20.0C -> 100.0C", "212.0F"], "both keys changed: \(temperatures.values)")

print("keyPathsAffectingValue(for:), for a read hidden behind a cache:")
let report = Report()
_ = report.summary  // warm the cache
let summaries = Recorder<String>()
let summaryToken = try report.observe(\.summary, options: [.new]) { _, change in summaries.append(change.newValue!) }
report.add(4)
report.add(6)
print("  ", summaries.values)
expect(summaries.values == ["1 entries, total 4", "2 entries, total 10"], "summaries: \(summaries.values)")

print("addObserver(_:forKeyPath:options:context:) and mutableArrayValue(forKey:):")
let playlist = Playlist()
let audit = AuditLog()
audit.kvoController.observe(playlist, keyPaths: [\.songs], options: [.old, .new], context: &AuditLog.playlistContext)
let songs = playlist.mutableArrayValue(for: \.songs)
songs.append("Giant Steps")
songs.insert(contentsOf: ["Naima", "Impressions"], at: 0)
songs.remove(at: 1)
songs[0] = "Alabama"
playlist.songs = []
let kinds = audit.records.map(\.kind)
let indexes = audit.records.map { $0.indexes.map(Array.init) }
expect(kinds == [.insertion, .insertion, .removal, .replacement, .setting], "kinds: \(kinds)")
expect(indexes == [[1], [0, 1], [1], [0], nil], "indexes: \(indexes)")
expect(audit.playlistRecords == 5, "every record carries the context it was observed with")
expect(audit.records[2].oldValue as? [String] == ["Impressions"], "a removal carries the removed elements")
expect(audit.records[3].newValue as? [String] == ["Alabama"], "a replacement carries the new elements")

print("a key path through the collection (its count) gets settings, while the array's own observer gets kinds:")
let counts = Recorder<KVOChange<Int>>()
let countToken = try playlist.observe(\.songCount, options: [.new]) { _, change in counts.append(change) }
songs.append("Moment's Notice")
songs.removeAll()
for change in counts.values {
    print("   songCount:", change)
}
expect(counts.values.map(\.kind) == [.setting, .setting], "song count kinds: \(counts.values.map(\.kind))")
expect(counts.values.map(\.newValue) == [1, 0], "song counts: \(counts.values.map(\.newValue))")

print("mutableSetValue(forKey:):")
let tagChanges = Recorder<KVOChange<Set<String>>>()
let tagToken = try playlist.observe(\.tags, options: [.old, .new]) { _, change in tagChanges.append(change) }
let tags = playlist.mutableSetValue(for: \.tags)
tags.formUnion(["modal", "jazz"])
tags.remove("jazz")
for change in tagChanges.values {
    print("  ", change)
}
expect(tagChanges.values.map(\.kind) == [.insertion, .removal], "set kinds")
expect(tagChanges.values[0].newValue == ["modal"], "only the elements actually added")
expect(tagChanges.values[1].oldValue == ["jazz"], "the elements actually removed")

print("value(forKeyPath:) and string key paths, with an error instead of valueForUndefinedKey:")
let person = Person()
let city = person[kvoKeyPath: "address.city"] as? String
print("   value at \"address.city\":", city ?? "nil")
expect(city == "London", "value at \"address.city\": \(city ?? "nil")")
let moves = AuditLog()
try moves.kvoController.observe(person, keyPath: "address.city", options: [.new]) { log, person, change in
    log.observeValue(forKeyPath: change.keyPath, of: person, change: change, context: nil)
}
person.address.city = "Paris"
expect(moves.records.map { $0.newValue as? String } == ["Paris"], "the string key path fired")
expect(moves.records.map(\.keyPathName) == ["address.city"], "a record names its string key path as written")
do {
    try moves.kvoController.observe(person, keyPath: "adress.city") { _, _, _ in }
    expect(false, "a misspelt key must throw")
} catch let error as KVOError {
    print("   error:", error.message)
    expect(error.reason == .unknownKey("adress"), "the error names the unknown key")
}

withExtendedLifetime((balanceToken, celsiusToken, fahrenheitToken, summaryToken, countToken, tagToken)) {}
print("CocoaKVOStyle: all expectations met")
