import Foundation
import KVOMediator
import Testing

/// A string key path observed as a type of the caller's (`observe(_:keyPath:as:…)`): the string form's
/// registration and records, each value given as `value as? Value`.
@Suite struct TypedStringKeyPathTests {
    @Test func aPropertyOfTheTypeAskedForGivesTheRecordsOfTheOtherFormTyped() throws {
        let person = Person()
        let observer = TestObserver()
        let typed = Recorder<String>()
        let other = TestObserver()
        let boxed = Recorder<Any>()
        try observer.kvoController.observe(person, keyPath: "name", as: String.self, options: [.old, .new, .prior]) {
            _,
            _,
            change in typed.append(change)
        }
        try other.kvoController.observe(person, keyPath: "name", options: [.old, .new, .prior]) { _, _, change in
            boxed.append(change)
        }
        person.name = "Bob"
        let name = \Person.[kvoKeyPath: "name"]
        #expect(
            typed.changes == [
                change(name, old: "Ada", prior: true),
                change(name, old: "Ada", new: "Bob"),
            ]
        )
        #expect(boxed.changes.map(\.isPrior) == typed.changes.map(\.isPrior))
        #expect(boxed.changes.map { $0.oldValue as? String } == typed.changes.map(\.oldValue))
        #expect(boxed.changes.map { $0.newValue as? String } == typed.changes.map(\.newValue))
        #expect(typed.changes.map(\.keyPathName) == ["name", "name"])
    }

    @Test func aNilValueOrANilLinkIsDeliveredAsNil() throws {
        let person = Person()
        let observer = TestObserver()
        let city = Recorder<String>()
        try observer.kvoController.observe(person, keyPath: "secondHome.city", as: String.self, options: [.old, .new]) {
            _,
            _,
            change in city.append(change)
        }
        person.secondHome = Address(city: "Paris")
        person.secondHome?.city = "Rome"
        person.secondHome = nil
        let path = \Person.[kvoKeyPath: "secondHome.city"]
        #expect(
            city.changes == [
                change(path, old: nil, new: "Paris"),
                change(path, old: "Paris", new: "Rome"),
                change(path, old: "Rome", new: nil),
            ]
        )
    }

    @Test func theInitialRecordHoldsTheValueNow() throws {
        let person = Person(city: "Oslo")
        let observer = TestObserver()
        let city = Recorder<String>()
        let options: KVOOptions = [.initial, .new]
        try observer.kvoController.observe(person, keyPath: "address.city", as: String.self, options: options) {
            _,
            _,
            change in city.append(change)
        }
        #expect(city.changes == [change(\Person.[kvoKeyPath: "address.city"], new: "Oslo")])
    }

    @Test func aCollectionMutationKeepsItsKindAndIndexesWithTypedElements() throws {
        let playlist = Playlist()
        playlist.songs = ["a"]
        let observer = TestObserver()
        let songs = Recorder<[String]>()
        try observer.kvoController.observe(playlist, keyPath: "songs", as: [String].self, options: [.old, .new]) {
            _,
            _,
            change in songs.append(change)
        }
        playlist.mutableArrayValue(for: \.songs).insert("z", at: 0)
        playlist.mutableArrayValue(for: \.songs).remove(at: 1)
        playlist.songs = ["x"]
        let path = \Playlist.[kvoKeyPath: "songs"]
        #expect(
            songs.changes == [
                change(path, kind: .insertion, new: ["z"], indexes: IndexSet(integer: 0)),
                change(path, kind: .removal, old: ["a"], indexes: IndexSet(integer: 1)),
                change(path, old: ["z"], new: ["x"]),
            ]
        )
    }

    @Test func aValueOfAnotherTypeNowIsAnErrorThatNamesBothTypesAndRegistersNothing() {
        let person = Person()
        let observer = TestObserver()
        let calls = CallCounter()
        do {
            try observer.kvoController.observe(person, keyPath: "address.city", as: Int.self) { _, _, _ in
                calls.increment()
            }
            Issue.record("observing a String as an Int did not throw")
        } catch let error as KVOError {
            #expect(error.reason == .typeMismatch(expected: "Int", actual: "String"))
            #expect(error.keyPath == "address.city")
            #expect(error.typeName == "Person")
            #expect(error.message.contains("as: String.self"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
        #expect(observer.kvoController.observationCount == 0)
        person.address.city = "Paris"
        #expect(calls.count == 0)
    }

    @Test func aBadPathIsTheSameErrorAsTheOtherFormsAndANilObjectDoesNothing() {
        let person = Person()
        let observer = TestObserver()
        for path in ["adress.city", "address..city", "name.first"] {
            var typed: KVOError?
            var boxed: KVOError?
            do { try observer.kvoController.observe(person, keyPath: path, as: Int.self) { _, _, _ in } } catch {
                typed = error as? KVOError
            }
            do { try observer.kvoController.observe(person, keyPath: path) { _, _, _ in } } catch {
                boxed = error as? KVOError
            }
            #expect(typed != nil)
            #expect(typed == boxed)
        }
        let nobody: Person? = nil
        #expect(throws: Never.self) {
            try observer.kvoController.observe(nobody, keyPath: "anything", as: Int.self) { _, _, _ in }
        }
        #expect(observer.kvoController.observationCount == 0)
    }

    @Test func aValueOfAnotherTypeLaterIsDeliveredAsNil() throws {
        let parcel = Parcel()
        let observer = TestObserver()
        let contents = Recorder<Int>()
        let note = Recorder<Int>()
        try observer.kvoController.observe(parcel, keyPath: "contents", as: Int.self, options: [.old, .new]) {
            _,
            _,
            change in contents.append(change)
        }
        // A key the class names by key path (a computed property over `contents`).
        try observer.kvoController.observe(parcel, keyPath: "note", as: Int.self, options: [.new]) { _, _, change in
            note.append(change)
        }
        parcel.contents = 5
        parcel.contents = "five"
        parcel.contents = 6
        let path = \Parcel.[kvoKeyPath: "contents"]
        #expect(
            contents.changes == [
                change(path, old: 0, new: 5),
                change(path, old: 5, new: nil),
                change(path, old: nil, new: 6),
            ]
        )
        #expect(note.changes.map(\.newValue) == [5, nil, 6])
    }

    @Test func itIsTheStringFormsRegistrationWhichEitherFormEnds() throws {
        let person = Person()
        let observer = TestObserver()
        let typed = CallCounter()
        let boxed = CallCounter()
        try observer.kvoController.observe(person, keyPath: "name", as: String.self) { _, _, _ in typed.increment() }
        try observer.kvoController.observe(person, keyPath: "name") { _, _, _ in boxed.increment() }
        observer.kvoController.observe(person, keyPath: \.name) { _, _, _ in boxed.increment() }
        #expect(observer.kvoController.observationCount == 1)
        person.name = "Bob"
        #expect(typed.count == 1)
        #expect(boxed.count == 0)
        observer.kvoController.unobserve(person, keyPath: "name")
        #expect(observer.kvoController.observationCount == 0)
        person.name = "Cy"
        #expect(typed.count == 1)
    }

    @Test func aTransactionDeliversOneRecordFromTheFirstOldValueToTheLastNewOne() throws {
        let person = Person()
        let observer = TestObserver()
        let name = Recorder<String>()
        try observer.kvoController.observe(person, keyPath: "name", as: String.self, options: [.old, .new]) {
            _,
            _,
            change in name.append(change)
        }
        withKVOTransaction {
            person.name = "B"
            person.name = "C"
            #expect(name.count == 0)
        }
        #expect(name.changes == [change(\Person.[kvoKeyPath: "name"], old: "Ada", new: "C")])
    }

    @Test func theObserverIsNotKeptAliveAndItsEndEndsTheRegistration() throws {
        let person = Person()
        let calls = CallCounter()
        weak var weakObserver: TestObserver?
        do {
            let observer = TestObserver()
            weakObserver = observer
            try observer.kvoController.observe(person, keyPath: "name", as: String.self) { _, _, _ in
                calls.increment()
            }
            person.name = "B"
        }
        #expect(weakObserver == nil)
        person.name = "C"
        #expect(calls.count == 1)
        #expect(person.kvoRegistrar.registrationCount == 0)
    }

    /// A property of an optional type, one name: its records are made from the setter's values out of
    /// their optionals, then cast.
    @Test func anOptionalPropertyGivesItsValueOrNilWithPriorRecords() throws {
        let person = Person()
        let observer = TestObserver()
        let home = Recorder<Address>()
        let options: KVOOptions = [.old, .new, .prior]
        try observer.kvoController.observe(person, keyPath: "secondHome", as: Address.self, options: options) {
            _,
            _,
            change in home.append(change)
        }
        let paris = Address(city: "Paris")
        person.secondHome = paris
        person.secondHome = nil
        let records = home.changes
        #expect(records.map(\.isPrior) == [true, false, true, false])
        #expect(records.map(\.kind) == [.setting, .setting, .setting, .setting])
        #expect(records.map { $0.oldValue === paris } == [false, false, true, true])
        #expect(records.map { $0.oldValue == nil } == [true, true, false, false])
        #expect(records.map { $0.newValue === paris } == [false, true, false, false])
        #expect(records.map { $0.newValue == nil } == [true, false, true, true])
        #expect(records.map(\.keyPathName) == Array(repeating: "secondHome", count: 4))
    }

    /// Asked for as an optional type, a nil value is a value that is nil, as a typed key path through an
    /// optional gives it; a record without the value has none.
    @Test func anOptionalTypeTellsANilValueFromNone() throws {
        let person = Person()
        let observer = TestObserver()
        let city = Recorder<String?>()
        try observer.kvoController.observe(person, keyPath: "secondHome.city", as: String?.self, options: [.new]) {
            _,
            _,
            change in city.append(change)
        }
        person.secondHome = Address(city: "Paris")
        person.secondHome = nil
        #expect(city.changes.map(\.newValue) == [.some("Paris"), .some(nil)])
        #expect(city.changes.map(\.oldValue) == [nil, nil])
    }

    @Test func aNilValueWhenObservingIsTakenForAnyType() throws {
        let person = Person()
        let observer = TestObserver()
        let number = Recorder<Int>()
        try observer.kvoController.observe(person, keyPath: "secondHome.city", as: Int.self, options: [.new]) {
            _,
            _,
            change in number.append(change)
        }
        #expect(observer.kvoController.observationCount == 1)
        person.secondHome = Address(city: "Paris")
        #expect(number.changes.map(\.newValue) == [nil])
    }

    @Test func aPropertyOfTypeAnyIsDeliveredAsItIsAskedForAsAny() throws {
        let parcel = Parcel()
        let observer = TestObserver()
        let contents = Recorder<Any>()
        try observer.kvoController.observe(parcel, keyPath: "contents", as: Any.self, options: [.old, .new]) {
            _,
            _,
            change in contents.append(change)
        }
        parcel.contents = "five"
        #expect(contents.changes.map { $0.oldValue as? Int } == [0])
        #expect(contents.changes.map { $0.newValue as? String } == ["five"])
    }
}
