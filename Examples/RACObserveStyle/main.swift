// RACObserve's usage, in Swift: values as an asynchronous sequence (current value first), chains that follow
// replaced objects, derived values, delivery on the main actor, and disposal by token, bag or task.
import Foundation
import KVOMediator
import Synchronization

final class Person: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var firstName: String
    @Observed var lastName: String
    @Observed var address: Address
    /// `combineLatest:reduce:` as a computed property: its reads are tracked.
    var fullName: String { "\(firstName) \(lastName)" }

    init(_ firstName: String, _ lastName: String, city: String = "London") {
        self.firstName = firstName
        self.lastName = lastName
        self.address = Address(city: city)
    }
}

final class Address: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var city: String

    init(city: String) {
        self.city = city
    }
}

final class Playlist: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var songs: [String] = []
}

/// A counter that a background thread advances. `@unchecked Sendable` is this file's promise: only one thread at a
/// time writes `value`, and other threads learn its values from sequences and change records, never by reading it.
final class Counter: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var value = 0
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
    FileHandle.standardError.write(Data("RACObserveStyle: FAILED at line \(line): \(message)\n".utf8))
    exit(1)
}

/// Collects elements until `last` arrives.
func collect<Element: Equatable & Sendable>(
    _ sequence: KVOAsyncSequence<Element>,
    until last: Element
) async -> [Element] {
    var collected: [Element] = []
    for await element in sequence {
        collected.append(element)
        if element == last { break }
    }
    return collected
}

/// The first `count` elements.
func prefix<Element: Sendable>(_ count: Int, of sequence: KVOAsyncSequence<Element>) async -> [Element] {
    var collected: [Element] = []
    for await element in sequence {
        collected.append(element)
        if collected.count == count { break }
    }
    return collected
}

// A loop waiting for a value that never comes would hang: fail instead.
DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
    expect(false, "timed out waiting for a value")
}

let person = Person("Ada", "Lovelace")

print("RACObserve(person, firstName): the current value, then each new one:")
let firstNames = try person.values(for: \.firstName)
person.firstName = "Grace"
person.firstName = "Katherine"
let seenFirstNames = await collect(firstNames, until: "Katherine")
print("  ", seenFirstNames)
expect(seenFirstNames == ["Ada", "Grace", "Katherine"], "first names: \(seenFirstNames)")

print("RACObserve(person, address.city): follows a replaced address, not the old one:")
let cities = try person.values(for: \.address.city)
let oldAddress = person.address
person.address = Address(city: "Paris")
oldAddress.city = "Nowhere"  // no longer person.address: not seen
person.address.city = "Rome"
let seenCities = await collect(cities, until: "Rome")
print("  ", seenCities)
expect(seenCities == ["London", "Paris", "Rome"], "cities: \(seenCities)")

print("combineLatest(firstName, lastName) as a computed property:")
let fullNames = try person.values(for: \.fullName)
person.firstName = "Grace"
person.lastName = "Hopper"
let seenFullNames = await collect(fullNames, until: "Grace Hopper")
print("  ", seenFullNames)
expect(seenFullNames == ["Katherine Lovelace", "Grace Lovelace", "Grace Hopper"], "full names: \(seenFullNames)")

print("deliverOn(main): a background thread counts, this main-actor loop sees every value in order:")
let counter = Counter()
let counts = try counter.values(for: \.value)
DispatchQueue.global().async {
    for value in 1...100 {
        counter.value = value
    }
}
let seenCounts = await collect(counts, until: 100)
print("   \(seenCounts.count) values, \(seenCounts.first!)...\(seenCounts.last!)")
expect(seenCounts == Array(0...100), "every count, in order")

print("deliverOn(main) for a controller: delivery: .mainActor runs a @MainActor block on the main actor:")
/// A view model on the main actor: its block may touch its state because the call asks for main-actor delivery.
@MainActor final class CounterLabel {
    lazy var kvoController = KVOController(observer: self)
    private(set) var texts: [String] = []

    func show(_ counter: Counter) {
        kvoController.observe(counter, keyPath: \.value, options: [.initial, .new], delivery: .mainActor) {
            label,
            change in
            label.texts.append("\(change.newValue!)")
        }
    }
}
let label = CounterLabel()
label.show(counter)  // on the main actor, nothing queued: the .initial record arrives before this returns
expect(label.texts == ["100"], "the initial record, synchronously: \(label.texts)")
DispatchQueue.global().async {
    for value in 101...110 {
        counter.value = value
    }
}
// Queued deliveries run while the main actor is free: this async main awaits (a command-line tool whose main
// thread never ran its main loop would never see them).
while label.texts.last != "110" {
    try await Task.sleep(for: .milliseconds(1))
}
print("  ", label.texts)
expect(label.texts == (100...110).map(String.init), "every value, in order: \(label.texts)")
label.kvoController.unobserveAll()

print("a state stream (buffering: .latest) skips to the current value:")
let latest = try counter.values(for: \.value, buffering: .latest)
for value in 111...1_000 {
    counter.value = value
}
let current = await prefix(1, of: latest).first
print("   first element:", current!)
expect(current == 1_000, "a slow consumer of a .latest stream gets the newest value")

print("rac_valuesAndChangesForKeyPath: change records, with kinds and indexes for collections:")
let playlist = Playlist()
let songChanges = try playlist.changes(for: \.songs, options: [.new])
let songs = playlist.mutableArrayValue(for: \.songs)
songs.append("Blue Train")
songs.insert("So What", at: 0)
songs.remove(at: 1)
playlist.songs = ["Naima"]
let records = await prefix(4, of: songChanges)
for record in records {
    print("  ", record)
}
expect(records.map(\.kind) == [.insertion, .insertion, .removal, .setting], "kinds: \(records.map(\.kind))")
expect(records.map(\.indexes) == [[0], [0], [1], nil], "indexes: \(records.map(\.indexes))")
expect(records.last?.newValue == ["Naima"], "a whole-array assignment is a setting with the new array")

print("takeUntil(rac_willDeallocSignal) is built in: the sequence finishes when the object goes away:")
var temporary: Person? = Person("Mary", "Jackson")
let temporaryNames = try temporary!.values(for: \.firstName)
temporary!.firstName = "Dorothy"
temporary = nil
var seenTemporary: [String] = []
for await name in temporaryNames {
    seenTemporary.append(name)
}
print("  ", seenTemporary, "then finished")
expect(seenTemporary == ["Mary", "Dorothy"], "the buffered values, then the end: \(seenTemporary)")

print("dispose: cancel the consuming task:")
let watched = Counter()
let watchedValues = try watched.values(for: \.value)
let consumer = Task {
    var count = 0
    for await _ in watchedValues { count += 1 }
    return count
}
consumer.cancel()
let consumed = await consumer.value
print("   the loop ended after \(consumed) element(s)")
expect(consumed <= 1, "at most the initial value before the cancellation: \(consumed)")
watched.value = 1  // the observation has ended: nothing is buffered any more

print("RACDisposable and RACCompoundDisposable: a token and a bag:")
let names = Recorder<String>()
let bag = KVOObservationBag()
try person.observe(\.firstName) { _, change in names.append("first: \(change.newValue!)") }.store(in: bag)
try person.observe(\.lastName) { _, change in names.append("last: \(change.newValue!)") }.store(in: bag)
let token = try person.observe(\.address.city, options: [.initial, .new]) { _, change in
    names.append("city: \(change.newValue!)")
}
person.firstName = "Annie"
person.lastName = "Easley"
bag.invalidateAll()
person.firstName = "not seen"
person.address.city = "Cleveland"
token.invalidate()
person.address.city = "not seen either"
print("  ", names.values)
expect(
    names.values == ["city: Rome", "first: Annie", "last: Easley", "city: Cleveland"],
    "nothing after invalidation: \(names.values)"
)
expect(!token.isValid && bag.count == 0, "the token is invalid and the bag is empty")

print("RACObserveStyle: all expectations met")
