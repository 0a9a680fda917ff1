import Foundation
import KVOMediator
import Synchronization
import Testing

/// `.distinct`: a change that leaves the value as it was delivers nothing, in every form of observation.
@Suite struct DistinctOptionTests {
    @Test func anEqualSetDeliversNothingAndADifferentOneItsExactRecord() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.target, options: [.old, .new, .distinct], by: observer)
        thermostat.target = 21
        thermostat.target = 21
        thermostat.target = 20
        thermostat.target = 20
        #expect(
            recorder.changes == [
                change(\Thermostat.target, old: 20, new: 21), change(\Thermostat.target, old: 21, new: 20),
            ]
        )
    }

    @Test func withoutDistinctAnEqualSetIsDeliveredAsCocoaDoes() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.target, options: [.old, .new], by: observer)
        thermostat.target = 20
        #expect(recorder.changes == [change(\Thermostat.target, old: 20, new: 20)])
    }

    @Test func recordsCarryOnlyTheValuesAskedFor() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let newOnly = recordChanges(of: thermostat, \.target, options: [.new, .distinct], by: observer)
        let neither = recordChanges(of: thermostat, \.label, options: [.distinct], by: observer)
        thermostat.target = 20
        thermostat.target = 22
        thermostat.label = nil
        thermostat.label = "x"
        #expect(newOnly.changes == [change(\Thermostat.target, new: 22)])
        #expect(neither.changes == [change(\Thermostat.label, old: String??.none, new: String??.none)])
    }

    @Test func anEqualSetSendsNeitherItsPriorNorItsChangeRecord() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.target, options: [.old, .new, .prior, .distinct], by: observer)
        thermostat.target = 20
        thermostat.target = 25
        #expect(
            recorder.changes == [
                change(\Thermostat.target, old: 20, prior: true), change(\Thermostat.target, old: 20, new: 25),
            ]
        )
    }

    @Test func theInitialRecordIsAlwaysDelivered() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.target, options: [.initial, .new, .distinct], by: observer)
        thermostat.target = 20
        #expect(recorder.changes == [change(\Thermostat.target, new: 20)])
    }

    @Test func objectsAreComparedByIdentityEvenWhenTheirClassIsEquatable() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.badge, options: [.new, .distinct], by: observer)
        let first = thermostat.badge
        thermostat.badge = first
        let twin = Badge("a")
        thermostat.badge = twin
        #expect(recorder.changes.map { $0.newValue.map(ObjectIdentifier.init) } == [ObjectIdentifier(twin)])
    }

    @Test func optionalObjectsAreComparedByIdentityAndNilness() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.optionalBadge, options: [.new, .distinct], by: observer)
        let badge = Badge("b")
        thermostat.optionalBadge = nil
        thermostat.optionalBadge = badge
        thermostat.optionalBadge = badge
        thermostat.optionalBadge = Badge("b")
        thermostat.optionalBadge = nil
        thermostat.optionalBadge = nil
        let ids = recorder.changes.map { $0.newValue!.map(ObjectIdentifier.init) }
        #expect(ids.count == 3)
        #expect(ids.first == ObjectIdentifier(badge))
        #expect(ids[1] != nil && ids[1] != ObjectIdentifier(badge))
        #expect(ids.last == .some(nil))
    }

    @Test func valuesThatAreNotEquatableAreAlwaysDelivered() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.opaque, options: [.new, .distinct], by: observer)
        thermostat.opaque = Opaque(number: 0)
        thermostat.opaque = Opaque(number: 0)
        #expect(recorder.changes.map { $0.newValue?.number } == [0, 0])
    }

    @Test func equalityIsEquatablesSoNotANumberIsNeverTheSame() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.reading, options: [.new, .distinct], by: observer)
        thermostat.reading = 20
        thermostat.reading = .nan
        thermostat.reading = .nan
        thermostat.reading = -0.0
        thermostat.reading = 0.0
        #expect(recorder.count == 3)
    }

    @Test func anExistentialIsComparedByWhatItHolds() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.anything, options: [.new, .distinct], by: observer)
        let badge = Badge("c")
        thermostat.anything = 0
        thermostat.anything = "0"
        thermostat.anything = "0"
        thermostat.anything = badge
        thermostat.anything = badge
        thermostat.anything = Badge("c")
        thermostat.anything = Opaque(number: 1)
        thermostat.anything = Opaque(number: 1)
        let values = recorder.changes.map { $0.newValue! }
        #expect(values.count == 5)
        #expect(values[0] as? String == "0")
        let second = values[1] as? Badge
        let third = values[2] as? Badge
        #expect(second === badge)
        #expect(third != nil && third !== badge)
        #expect(values[3] is Opaque && values[4] is Opaque)
    }

    @Test func nestedOptionalsAreComparedLevelByLevel() throws {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let typed = recordChanges(of: thermostat, \.nested, options: [.new, .distinct], by: observer)
        // (Another controller: one controller observes a key path once, whichever way it is written.)
        let byName = TestObserver()
        let named = try recordChanges(of: thermostat, "nested", options: [.new, .distinct], by: byName)
        thermostat.nested = .some(nil)
        thermostat.nested = nil
        thermostat.nested = nil
        thermostat.nested = 1
        thermostat.nested = 1
        #expect(typed.changes == [change(\Thermostat.nested, new: Int??.none), change(\Thermostat.nested, new: 1)])
        #expect(named.changes.map { $0.newValue as? Int } == [nil, 1])
    }

    @Test func aComputedPropertyThatKeepsItsValueDeliversNothing() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.isEven, options: [.old, .new, .distinct], by: observer)
        thermostat.target = 22
        thermostat.target = 24
        thermostat.target = 25
        thermostat.target = 27
        thermostat.target = 28
        #expect(
            recorder.changes == [
                change(\Thermostat.isEven, old: true, new: false), change(\Thermostat.isEven, old: false, new: true),
            ]
        )
    }

    @Test func aComputedPropertyWithoutOldValuesStillComparesThem() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.isEven, options: [.new, .distinct], by: observer)
        thermostat.target = 22
        thermostat.target = 23
        thermostat.target = 25
        #expect(recorder.changes == [change(\Thermostat.isEven, new: false)])
    }

    @Test func withPriorARereadKeyPathDeliversTheChangeThatFollowsItsPriorRecord() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.isEven, options: [.old, .new, .prior, .distinct], by: observer)
        thermostat.target = 22
        #expect(
            recorder.changes == [
                change(\Thermostat.isEven, old: true, prior: true), change(\Thermostat.isEven, old: true, new: true),
            ]
        )
    }

    /// The last property of a chain observed through `keyPaths:` is read again after a set, as a computed
    /// property is (its value is the chain's optional, not the setter's): with `.prior`, a set to its own
    /// value sends the prior record and then the change record that follows it; without, nothing.
    @Test func withPriorAKeyPathsChainsLastPropertySetToItsOwnValueDeliversItsPriorAndItsChange() {
        let thermostat = Thermostat()
        thermostat.room = Room("hall")
        let observer = TestObserver()
        let withPrior = Recorder<Any>()
        let withoutPrior = Recorder<Any>()
        observer.kvoController.observe(thermostat, keyPaths: [\.room?.name], options: [.old, .new, .prior, .distinct]) {
            withPrior.append($2)
        }
        let other = TestObserver()
        other.kvoController.observe(thermostat, keyPaths: [\.room?.name], options: [.old, .new, .distinct]) {
            withoutPrior.append($2)
        }
        thermostat.room?.name = "hall"
        let records = withPrior.changes.map {
            [$0.isPrior ? "prior" : "change", $0.oldValue as? String, $0.newValue as? String]
        }
        #expect(records == [["prior", "hall", nil], ["change", "hall", "hall"]])
        #expect(withoutPrior.changes.isEmpty)
    }

    @Test func aChainComparesTheValueAtItsEndWhicheverLinkChanged() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.room?.name, options: [.old, .new, .distinct], by: observer)
        thermostat.room = Room("hall")
        thermostat.room?.name = "hall"
        thermostat.room?.name = "den"
        thermostat.room = Room("den")
        thermostat.room = nil
        thermostat.room = nil
        #expect(
            recorder.changes == [
                change(\Thermostat.room?.name, old: "hall", new: "den"),
                change(\Thermostat.room?.name, old: "den", new: String?.none),
            ]
        )
    }

    @Test func aStringKeyPathComparesAsTheTypedOneDoes() throws {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let target = try recordChanges(of: thermostat, "target", options: [.old, .new, .distinct], by: observer)
        let label = try recordChanges(of: thermostat, "label", options: [.old, .new, .distinct], by: observer)
        let room = try recordChanges(of: thermostat, "room.name", options: [.old, .new, .distinct], by: observer)
        thermostat.target = 20
        thermostat.target = 21
        thermostat.label = nil
        thermostat.label = "a"
        thermostat.label = "a"
        thermostat.room = Room("hall")
        #expect(target.changes.map { [$0.oldValue as? Int, $0.newValue as? Int] } == [[20, 21]])
        #expect(label.changes.map { $0.newValue as? String } == ["a"])
        #expect(room.count == 0)
    }

    @Test func aSetByNameOfTheSameValueDeliversNothing() throws {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.target, options: [.new, .distinct], by: observer)
        try thermostat.setValue(20, atKeyPath: "target")
        try thermostat.setValue(20 as Any?, atKeyPath: "target")
        try thermostat.setValue(23, atKeyPath: "target")
        #expect(recorder.changes == [change(\Thermostat.target, new: 23)])
    }

    @Test func eachRegistrationOfOnePropertyDecidesForItself() {
        let thermostat = Thermostat()
        let observers = (0..<4).map { _ in TestObserver() }
        let recorders = observers.enumerated().map { index, observer in
            recordChanges(
                of: thermostat,
                \.target,
                options: index.isMultiple(of: 2) ? [.new, .distinct, .prior] : [.new],
                by: observer
            )
        }
        thermostat.target = 20
        thermostat.target = 21
        withExtendedLifetime(observers) {}
        #expect(recorders.map(\.count) == [2, 2, 2, 2])
        #expect(recorders[0].changes == [change(\Thermostat.target, prior: true), change(\Thermostat.target, new: 21)])
        #expect(recorders[1].changes == [change(\Thermostat.target, new: 20), change(\Thermostat.target, new: 21)])
    }

    @Test func aCollectionMutationIsAlwaysDeliveredAndAWholeSetIsCompared() {
        let thermostat = Thermostat()
        thermostat.history = [1, 2]
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.history, options: [.old, .new, .distinct], by: observer)
        thermostat.mutableArrayValue(for: \.history).replace(at: 0, with: 1)
        thermostat.history = [1, 2]
        thermostat.history = [1, 2, 3]
        #expect(
            recorder.changes == [
                change(\Thermostat.history, kind: .replacement, old: [1], new: [1], indexes: IndexSet(integer: 0)),
                change(\Thermostat.history, old: [1, 2], new: [1, 2, 3]),
            ]
        )
    }

    @Test func aManualChangeThatChangedNothingDeliversNothing() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = recordChanges(of: thermostat, \.manual, options: [.old, .new, .distinct], by: observer)
        thermostat.willChangeValue(for: \.manual)
        thermostat.didChangeValue(for: \.manual)
        thermostat.willChangeValue(for: \.manual)
        thermostat.manual = 4
        thermostat.didChangeValue(for: \.manual)
        #expect(recorder.changes == [change(\Thermostat.manual, old: 0, new: 4)])
    }

    @Test func tokensAndStreamsTakeTheOptionToo() async throws {
        let thermostat = Thermostat()
        let counter = CallCounter()
        let token = try thermostat.observe(\.target, options: [.new, .distinct]) { _, _ in counter.increment() }
        let stream = try thermostat.changes(for: \.target, options: [.new, .distinct])
        thermostat.target = 20
        thermostat.target = 30
        thermostat.target = 30
        thermostat.target = 31
        var received: [Int] = []
        for await change in stream {
            received.append(change.newValue!)
            if received.count == 2 { break }
        }
        #expect(received == [30, 31])
        #expect(counter.count == 2)
        withExtendedLifetime(token) {}
    }

    @Test func theCocoaDelegateAndManyKeyPathFormsTakeTheOptionToo() {
        let thermostat = Thermostat()
        let observer = TestObserver()
        let recorder = Recorder<Any>()
        observer.kvoController.observe(thermostat, keyPaths: [\.target, \.label], options: [.new, .distinct]) {
            _,
            _,
            change in recorder.append(change)
        }
        thermostat.target = 20
        thermostat.label = nil
        thermostat.target = 21
        #expect(recorder.changes.map { $0.newValue as? Int } == [21])
    }

    @Test func aWeakReferentsDeathIsDeliveredThoughBothValuesReadNil() {
        let console = Console()
        let observer = TestObserver()
        // (Names only: a record kept with the agent in it would keep the agent alive.)
        let direct = Mutex<[[String?]]>([])
        let chain = Recorder<String?>()
        observer.kvoController.observe(console, keyPath: \.agent, options: [.old, .new, .distinct]) { _, _, change in
            direct.withLock { $0.append([change.oldValue??.name, change.newValue??.name]) }
        }
        observer.kvoController.observe(console, keyPath: \.agent?.status, options: [.old, .new, .distinct]) {
            _,
            _,
            change in chain.append(change)
        }
        var agent: Agent? = Agent("a", status: "busy")
        console.agent = agent
        agent = nil
        #expect(direct.withLock { $0 } == [[nil, "a"], [nil, nil]])
        #expect(chain.changes.map { [$0.oldValue ?? nil, $0.newValue ?? nil] } == [[nil, "busy"], [nil, nil]])
        // A set of nil afterwards changes nothing.
        console.agent = nil
        #expect(direct.withLock { $0.count } == 2)
    }

    @Test func theDelegateFormTakesTheOptionToo() {
        let thermostat = Thermostat()
        let observer = ContextObserver()
        observer.kvoController.observe(thermostat, keyPaths: [\.target], options: [.new, .distinct], context: nil)
        thermostat.target = 20
        thermostat.target = 21
        thermostat.target = 21
        #expect(observer.deliveries.map { $0.change.newValue as? Int } == [21])
    }

    @Test func theOptionIsNamedInDescriptions() {
        #expect(KVOOptions([.new, .distinct]).description == "[.new, .distinct]")
    }
}
