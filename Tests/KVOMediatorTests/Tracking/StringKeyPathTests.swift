import KVOMediator
import Testing

@testable import KVOMediator

/// String key paths resolve `@Observed` names with no declaration and meet the typed form.
@Suite struct StringKeyPathTests {
    @Test func stringKeyPathObservesAProperty() throws {
        let person = Person(name: "Ada")
        let observer = TestObserver()
        let records = Recorder<Any>()
        try observer.kvoController.observe(person, keyPath: "name", options: [.initial, .old, .new]) { _, _, change in
            records.append(change)
        }
        person.name = "Grace"
        let keyPath: AnyKeyPath = \Person.[kvoKeyPath: "name"]
        let changes = records.changes
        #expect(changes.count == 2)
        #expect(matches(changes[0], change(keyPath, new: "Ada")))
        #expect(matches(changes[1], change(keyPath, old: "Ada", new: "Grace")))
        #expect(String(describing: changes[1].newValue!) == "Grace")  // the value itself, not an optional
    }

    @Test func stringChainFollowsReplacementsLikeTheTypedOne() throws {
        let person = Person(city: "London")
        let observer = TestObserver()
        let records = Recorder<Any>()
        try observer.kvoController.observe(person, keyPath: "address.city", options: [.old, .new]) { _, _, change in
            records.append(change)
        }
        let old = person.address
        person.address.city = "Paris"
        person.address = Address(city: "Rome")
        old.city = "ignored"
        person.address.city = "Milan"
        #expect(records.changes.map { $0.oldValue as? String } == ["London", "Paris", "Rome"])
        #expect(records.changes.map { $0.newValue as? String } == ["Paris", "Rome", "Milan"])
        #expect(old.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func stringChainOfDepthThreeAndNilIntermediates() throws {
        let person = Person()
        let observer = TestObserver()
        let records = Recorder<Any>()
        try observer.kvoController.observe(person, keyPath: "secondHome.street.number", options: [.new]) {
            _,
            _,
            change in records.append(change)
        }
        person.secondHome = Address(city: "Nice")
        person.secondHome?.street.number = 12
        person.secondHome = nil
        let values = records.changes.map { $0.newValue.flatMap { flattened($0) } as? Int }
        #expect(values == [1, 12, nil])
        #expect(records.changes.allSatisfy { $0.newValue != nil })  // .new was asked: present, holding nil
    }

    @Test func typedObservationAfterTheStringFormIsIgnored() throws {
        let person = Person()
        let observer = TestObserver()
        let strings = CallCounter()
        let typed = CallCounter()
        try observer.kvoController.observe(person, keyPath: "address.city") { _, _, _ in strings.increment() }
        observer.kvoController.observe(person, keyPath: \.address.city) { _, _, _ in typed.increment() }
        person.address.city = "Paris"
        #expect(strings.count == 1)
        #expect(typed.count == 0)
        #expect(observer.kvoController.observationCount == 1)
    }

    @Test func stringObservationAfterTheTypedFormIsIgnored() throws {
        let person = Person()
        let observer = TestObserver()
        let strings = CallCounter()
        let typed = CallCounter()
        observer.kvoController.observe(person, keyPath: \.address.city) { _, _, _ in typed.increment() }
        try observer.kvoController.observe(person, keyPath: "address.city") { _, _, _ in strings.increment() }
        person.address.city = "Paris"
        #expect(typed.count == 1)
        #expect(strings.count == 0)
    }

    @Test func eitherFormUnobservesTheOther() throws {
        let person = Person()
        let observer = TestObserver()
        let counter = CallCounter()
        try observer.kvoController.observe(person, keyPath: "address.city") { _, _, _ in counter.increment() }
        observer.kvoController.unobserve(person, keyPath: \.address.city)
        person.address.city = "Paris"
        #expect(counter.count == 0)
        #expect(observer.kvoController.observationCount == 0)

        observer.kvoController.observe(person, keyPath: \.name) { _, _, _ in counter.increment() }
        observer.kvoController.unobserve(person, keyPath: "name")
        person.name = "Grace"
        #expect(counter.count == 0)
        #expect(person.kvoRegistrar.subscriptionCount == 0)
        #expect(person.address.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func stringAndTypedObserversOfOneSlotInDifferentControllersBothFire() throws {
        let person = Person()
        let first = TestObserver()
        let second = TestObserver()
        let counter = CallCounter()
        try first.kvoController.observe(person, keyPath: "name") { _, _, _ in counter.increment() }
        second.kvoController.observe(person, keyPath: \.name) { _, _, _ in counter.increment() }
        person.name = "Grace"
        #expect(counter.count == 2)
    }

    @Test func unknownNameThrowsAnErrorListingTheValidNames() {
        let person = Person()
        let observer = TestObserver()
        #expect {
            try observer.kvoController.observe(person, keyPath: "adress.city") { _, _, _ in }
        } throws: { error in
            guard let error = error as? KVOError else { return false }
            return error.reason == .unknownKey("adress") && error.typeName == "Person"
                && error.message
                    == "KVOMediator: Person has no observable property \"adress\" (in key path \"adress.city\" of "
                    + "Person). Its observable properties are: address, name, nickname, secondHome, usesNickname. "
                    + "A string key path names an @Observed property or a key path the class returns from keyPath(forKey:)."
        }
        #expect(observer.kvoController.observationCount == 0)
        #expect(person.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func unknownNameDeeperInTheChainNamesItsOwnTypeInTheMessageAndTheRootAsTypeName() {
        let person = Person()
        #expect {
            try person.validateKeyPath("address.town")
        } throws: { error in
            let error = error as? KVOError
            return error?.reason == .unknownKey("town") && error?.typeName == "Person"
                && error?.message.contains("Address has no observable property \"town\"") == true
                && error?.message.contains("Its observable properties are: city, street.") == true
        }
    }

    @Test func plainPropertiesAreNotObservableByName() {
        let person = Person()
        #expect(throws: KVOError.self) { try person.validateKeyPath("plainNote") }
        #expect(throws: KVOError.self) { try person.validateKeyPath("displayName") }
    }

    @Test(arguments: ["", ".", "..", "name.", ".name", "address..city", "address.city."])
    func malformedKeyPathsThrow(path: String) {
        let person = Person()
        #expect {
            try person.validateKeyPath(path)
        } throws: { error in
            (error as? KVOError)?.reason == .malformedKeyPath
                && (error as? KVOError)?.message.contains("is not a valid key path of Person") == true
        }
    }

    @Test func pathThroughAValueThatIsNotAnObjectThrows() {
        let person = Person()
        #expect {
            try person.validateKeyPath("name.count")
        } throws: { error in
            (error as? KVOError)?.message
                == "KVOMediator: \"name\" of Person is a String, not a KeyValueObservable object, so the key path "
                + "\"name.count\" of Person cannot continue past it."
        }
    }

    @Test func pathPastANilLinkDeclaredAsAProtocolIsAcceptedAndObserved() throws {
        let holder = TitledHolder()
        try holder.validateKeyPath("link.title")
        let observer = TestObserver()
        let records = Recorder<Any>()
        try observer.kvoController.observe(holder, keyPath: "link.title", options: [.new]) { _, _, change in
            records.append(change)
        }
        let item = TitledItem()
        holder.link = item
        item.title = "Ada"
        #expect(records.changes.map { $0.newValue as? String } == ["", "Ada"])
        // A value type is still no place to go on from, nil or not.
        #expect {
            try holder.validateKeyPath("count.title")
        } throws: { error in
            (error as? KVOError)?.message.contains("is a Int, not a KeyValueObservable object") == true
        }
    }

    @Test func subscriptReadsLikeValueForKeyPath() {
        let person = Person(name: "Ada", city: "London")
        #expect(person[kvoKeyPath: "address.city"] as? String == "London")
        #expect(person[kvoKeyPath: "address.street.number"] as? Int == 1)
        #expect(person[kvoKeyPath: "secondHome.city"] == nil)
        #expect(person[kvoKeyPath: "nope"] == nil)
    }

    @Test func inheritedPropertiesResolveByName() throws {
        let square = Square()
        let observer = TestObserver()
        let records = Recorder<Any>()
        try observer.kvoController.observe(square, keyPath: "width", options: [.new]) { _, _, change in
            records.append(change)
        }
        square.width = 3
        #expect(records.changes.map { $0.newValue as? Int } == [3])
    }

    @Test func propertiesOfGenericClassesResolveByNameAndMeetTheTypedForm() throws {
        let box = GenericBox(value: [1])
        let observer = TestObserver()
        let records = Recorder<Any>()
        try observer.kvoController.observe(box, keyPath: "value", options: [.old, .new]) { _, _, change in
            records.append(change)
        }
        // The typed form names the same slot, so it is the same registration and is ignored.
        observer.kvoController.observe(box, keyPath: \.value, options: [.new]) { _, _, _ in
            Issue.record("the typed twin of a string registration must be ignored")
        }
        box.value = [1, 2]
        box.other = "not observed"
        #expect(records.changes.map { $0.oldValue as? [Int] } == [[1]])
        #expect(records.changes.map { $0.newValue as? [Int] } == [[1, 2]])
        #expect(box.kvoRegistrar.subscriptionCount == 1)
    }
}

/// A generic class: its fields' offsets come from its specialised metadata.
final class GenericBox<Value>: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var other = ""
    @Observed var value: Value

    init(value: Value) {
        self.value = value
    }
}
