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
        #expect(throws: KVOError.self) {
            try observer.kvoController.observe(person, keyPath: "adress.city", as: String.self) { _, _, _ in }
        }
        #expect(throws: KVOError.self) {
            try observer.kvoController.observe(person, keyPath: "address..city", as: String.self) { _, _, _ in }
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
}
