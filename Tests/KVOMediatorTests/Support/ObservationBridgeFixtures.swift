import Foundation
import KVOMediator
import Observation
import Synchronization

// Models that live in both worlds: KeyValueObservable classes that also conform to `Observable`, so that
// `withObservationTracking`, `Observations` (and SwiftUI) track their `@Observed` properties too.

/// A bridged model with every kind of observable property: stored, computed, a chain, collections,
/// custom storage announced by hand and a property announced by hand.
///
/// `@unchecked Sendable` because thread tests and `Observations` closures take it to other threads;
/// they never write one property from two threads at once.
final class BridgedContact: KeyValueObservable, Observable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var first = "Ada"
    @Observed var last = "Lovelace"
    @Observed var address = BridgedAddress()
    @Observed var tags: [String] = []
    @Observed var labels: Set<String> = []
    @Observed var visits = 0
    @Observed(automaticallyNotifies: false) var score = 0
    private var storedNote = ""

    /// Computed from two `@Observed` properties.
    var fullName: String { "\(first) \(last)" }

    /// Custom storage: its getter reports its read, its setter announces its change.
    var note: String {
        get {
            accessValue(for: \.note)
            return storedNote
        }
        set {
            willChangeValue(for: \.note)
            storedNote = newValue
            didChangeValue(for: \.note)
        }
    }

    /// Two increments announced as one change, by hand.
    func addTwoPoints() {
        withChange(of: \.score) {
            score += 1
            score += 1
        }
    }
}

/// The second link of ``BridgedContact``'s chain `\.address.city`; bridged too.
final class BridgedAddress: KeyValueObservable, Observable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var city = "London"
}

/// A bridged base class: its subclass inherits the bridge with the conformances.
class BridgedShape: KeyValueObservable, Observable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var width = 1
}

/// Declares `@Observed` properties of its own beside the inherited ones.
final class BridgedSquare: BridgedShape, @unchecked Sendable {
    @Observed var rotation = 0
    var doubledWidth: Int { width * 2 }
}

/// A base class that adopts KeyValueObservable without `Observable`.
class UnbridgedShape: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var width = 1
}

/// Adds only the `Observable` conformance: not bridged, as the bridge is chosen where the class adopts
/// KeyValueObservable (the article says so).
final class ObservableOnlySubclass: UnbridgedShape, Observable {
    @Observed var rotation = 0
}

/// A bridged model that lives on the main actor, as SwiftUI models do.
@MainActor
final class BridgedScoreboard: KeyValueObservable, Observable {
    let kvoRegistrar = KVORegistrar()
    @Observed var home = 0
    @Observed var away = 0
    var summary: String { "\(home)–\(away)" }
}

/// The same shape as ``BridgedContact``'s stored and computed properties, not bridged: Observation
/// cannot see it.
final class UnbridgedContact: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var first = "Ada"
    @Observed var last = "Lovelace"
    var fullName: String { "\(first) \(last)" }
}

/// Observation's own model of the same shape, to compare the bridge with.
@Observable
final class ObservableContact: @unchecked Sendable {
    var first = "Ada"
}

/// Whether `@Observed` accessors of `type` report to Observation: the conformance's witness, as the
/// library's generic accessors see it (naming the member on a concrete type could pick another one).
func reportsToObservation<Object: KeyValueObservable>(_ type: Object.Type) -> Bool {
    Object._reportsToObservation
}

/// Counts callbacks from any thread.
final class CallTally: Sendable {
    private let calls = Atomic<Int>(0)

    var count: Int { calls.load(ordering: .acquiring) }

    func record() {
        calls.wrappingAdd(1, ordering: .acquiringAndReleasing)
    }
}

/// How many times `onChange` fires while `read` is tracked once with `withObservationTracking`,
/// after `change` runs: 0 or 1, as Observation fires once and stops.
func observationFires(tracking read: () -> Void, after change: () -> Void) -> Int {
    let tally = CallTally()
    withObservationTracking(read) { tally.record() }
    change()
    return tally.count
}

/// Keeps `read` tracked the way SwiftUI keeps a view's body tracked: each `onChange` tracks it again
/// (on the changing thread, before the change lands), and every call is counted.
final class ObservationLoop: Sendable {
    let tally = CallTally()
    private let read: @Sendable () -> Void

    init(tracking read: @escaping @Sendable () -> Void) {
        self.read = read
        track()
    }

    private func track() {
        withObservationTracking(read) { [weak self] in
            guard let self else { return }
            self.tally.record()
            self.track()
        }
    }
}

/// A bridged model whose collections are announced by hand (an array with custom storage, by index;
/// a set, by set mutation) and whose `delegate` is an `@ObservedWeak` property.
final class BridgedPlaylist: KeyValueObservable, Observable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    private var storedTracks: [String] = []
    @Observed(automaticallyNotifies: false) var genres: Set<String> = []
    @ObservedWeak var delegate: BridgedAddress?

    /// Custom storage, changed in place and announced with indexes.
    var tracks: [String] {
        accessValue(for: \.tracks)
        return storedTracks
    }

    func append(_ track: String) {
        withChange(.insertion, at: [storedTracks.count], of: \.tracks) { storedTracks.append(track) }
    }

    func addGenres(_ added: Set<String>) {
        withChange(.union, using: added, of: \.genres) { genres.formUnion(added) }
    }
}

/// A bridged class with more stored properties than the bridge keeps one key path object for (16).
final class BridgedWide: KeyValueObservable, Observable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var p0 = 0
    @Observed var p1 = 0
    @Observed var p2 = 0
    @Observed var p3 = 0
    @Observed var p4 = 0
    @Observed var p5 = 0
    @Observed var p6 = 0
    @Observed var p7 = 0
    @Observed var p8 = 0
    @Observed var p9 = 0
    @Observed var p10 = 0
    @Observed var p11 = 0
    @Observed var p12 = 0
    @Observed var p13 = 0
    @Observed var p14 = 0
    @Observed var p15 = 0
    @Observed var p16 = 0
    @Observed var p17 = 0
    @Observed var p18 = 0
    @Observed var p19 = 0

    nonisolated(unsafe) static let properties: [ReferenceWritableKeyPath<BridgedWide, Int>] = [
        \.p0, \.p1, \.p2, \.p3, \.p4, \.p5, \.p6, \.p7, \.p8, \.p9,
        \.p10, \.p11, \.p12, \.p13, \.p14, \.p15, \.p16, \.p17, \.p18, \.p19,
    ]
}

/// A bridged model with an `@Observed` array, and one whose changes are announced by hand.
final class BridgedQueue: KeyValueObservable, Observable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var items: [String] = []
    @Observed(automaticallyNotifies: false) var quiet: [String] = []
}
