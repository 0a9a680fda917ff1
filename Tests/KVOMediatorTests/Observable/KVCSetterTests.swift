import Foundation
import KVOMediator
import Testing

@testable import KVOMediator

/// Setting `@Observed` properties by string key path: a set announces exactly what a typed set
/// announces, to every form of registration; a bad one throws an error naming what is wrong, and
/// sets nothing.
@Suite struct KVCSetterTests {
    @Test func aSetByNameDeliversTheRecordsOfATypedSetPriorIncluded() throws {
        let typedSet = Person(name: "Ada")
        let setByName = Person(name: "Ada")
        let observer = TestObserver()
        let typed = Recorder<String>()
        let byName = Recorder<String>()
        let options: KVOOptions = [.old, .new, .prior]
        observer.kvoController.observe(typedSet, keyPath: \.name, options: options) { typed.append($2) }
        observer.kvoController.observe(setByName, keyPath: \.name, options: options) { byName.append($2) }
        typedSet.name = "Grace"
        try setByName.setValue("Grace", atKeyPath: "name")
        let expected: [KVOChange<String>] = [
            change(\Person.name, old: "Ada", prior: true), change(\Person.name, old: "Ada", new: "Grace"),
        ]
        #expect(typed.changes == expected)
        #expect(byName.changes == expected)
        #expect(setByName.name == "Grace")
    }

    @Test func aSetAtDepthTwoReachesStringChainAndDirectRegistrations() throws {
        let person = Person(city: "London")
        let (first, second) = (TestObserver(), TestObserver())
        let strings = Recorder<Any>()
        let chain = Recorder<String>()
        let direct = Recorder<String>()
        try first.kvoController.observe(person, keyPath: "address.city", options: [.old, .new, .prior]) {
            strings.append($2)
        }
        second.kvoController.observe(person, keyPath: \.address.city, options: [.old, .new]) { chain.append($2) }
        second.kvoController.observe(person.address, keyPath: \.city, options: [.new]) { direct.append($2) }
        try person.setValue("Paris", atKeyPath: "address.city")
        let stringKeyPath = \Person.[kvoKeyPath: "address.city"]
        let expected: [KVOChange<String>] = [
            change(stringKeyPath, old: "London", prior: true), change(stringKeyPath, old: "London", new: "Paris"),
        ]
        #expect(allMatch(strings.changes, expected))
        #expect(chain.changes == [change(\Person.address.city, old: "London", new: "Paris")])
        #expect(direct.changes == [change(\Address.city, new: "Paris")])
    }

    @Test func setsAtDepthsOneTwoAndThreeReachTokensAndStreamsOfTheChain() async throws {
        var person: Person? = Person()
        let tokenRecords = Recorder<Int>()
        let token = try person!.observe(\.address.street.number, options: [.old, .new]) { tokenRecords.append($1) }
        let stream = try person!.changes(for: \.address.street.number, options: [.old, .new])
        try person!.setValue(7, atKeyPath: "address.street.number")
        try person!.address.setValue(8, atKeyPath: "street.number")
        try person!.address.street.setValue(9, atKeyPath: "number")
        person = nil  // ends the stream, so that reading it cannot wait forever
        let keyPath = \Person.address.street.number
        let expected: [KVOChange<Int>] = [
            change(keyPath, old: 1, new: 7), change(keyPath, old: 7, new: 8), change(keyPath, old: 8, new: 9),
        ]
        #expect(tokenRecords.changes == expected)
        var streamed: [KVOChange<Int>] = []
        for await record in stream { streamed.append(record) }
        #expect(streamed == expected)
        token.invalidate()
    }

    @Test func aLinkSetByNameMovesTheChainToTheNewObject() throws {
        let person = Person(city: "London")
        let old = person.address
        let observer = TestObserver()
        let chain = Recorder<String>()
        observer.kvoController.observe(person, keyPath: \.address.city, options: [.old, .new]) { chain.append($2) }
        try person.setValue(Address(city: "Rome"), atKeyPath: "address")
        old.city = "ignored"
        try person.setValue("Milan", atKeyPath: "address.city")
        let keyPath = \Person.address.city
        #expect(
            chain.changes == [change(keyPath, old: "London", new: "Rome"), change(keyPath, old: "Rome", new: "Milan")]
        )
        #expect(old.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func aSetByNameReEvaluatesAComputedPropertyThatReadsIt() throws {
        let person = Person(name: "Ada")
        person.nickname = "Countess"
        let observer = TestObserver()
        let records = Recorder<String>()
        observer.kvoController.observe(person, keyPath: \.displayName, options: [.old, .new]) { records.append($2) }
        try person.setValue(true, atKeyPath: "usesNickname")
        try person.setValue("Lovelace", atKeyPath: "nickname")
        try person.setValue("Augusta", atKeyPath: "name")  // no longer read: nothing delivered
        let keyPath = \Person.displayName
        let expected: [KVOChange<String>] = [
            change(keyPath, old: "Ada", new: "Countess"), change(keyPath, old: "Countess", new: "Lovelace"),
        ]
        #expect(records.changes == expected)
    }

    @Test func anOptionalPropertyIsSetToAValueAndToNil() throws {
        let account = Account()
        let observer = TestObserver()
        let records = Recorder<String?>()
        observer.kvoController.observe(account, keyPath: \.email, options: [.old, .new]) { records.append($2) }
        try account.setValue("ada@example.com", atKeyPath: "email")
        try account.setValue(nil, atKeyPath: "email")
        let optional: String? = "grace@example.com"
        try account.setValue(optional, atKeyPath: "email")
        let expected: [KVOChange<String?>] = [
            change(\Account.email, old: .some(nil), new: "ada@example.com"),
            change(\Account.email, old: "ada@example.com", new: .some(nil)),
            change(\Account.email, old: .some(nil), new: "grace@example.com"),
        ]
        #expect(records.changes == expected)
        #expect(account.email == "grace@example.com")
    }

    @Test func anOptionalLinkSetToNilByNameBreaksTheChainAsATypedSetDoes() throws {
        let person = Person()
        let observer = TestObserver()
        let chain = Recorder<String?>()
        observer.kvoController.observe(person, keyPath: \.secondHome?.city, options: [.old, .new]) { chain.append($2) }
        try person.setValue(Address(city: "Nice"), atKeyPath: "secondHome")
        try person.setValue("Lyon", atKeyPath: "secondHome.city")
        try person.setValue(nil, atKeyPath: "secondHome")
        let keyPath = \Person.secondHome?.city
        let expected: [KVOChange<String?>] = [
            change(keyPath, old: .some(nil), new: "Nice"), change(keyPath, old: "Nice", new: "Lyon"),
            change(keyPath, old: "Lyon", new: .some(nil)),
        ]
        #expect(chain.changes == expected)
        #expect(person.secondHome == nil)
    }

    @Test func aSubclassInstanceSetsALinkDeclaredAsItsBaseClass() throws {
        let account = Account()
        try account.setValue(GuideDog(), atKeyPath: "companion")
        try account.setValue(3, atKeyPath: "companion.tricks")
        #expect((account.companion as? GuideDog)?.tricks == 3)
        let error = #expect(throws: KVOError.self) { try account.setValue(Person(), atKeyPath: "companion") }
        #expect(error?.reason == .typeMismatch(expected: "Optional<Companion>", actual: "Person"))
        #expect(account.companion is GuideDog)
    }

    @Test func anIntDoesNotSetADoubleAndTheErrorNamesTheTypesAndTheFix() throws {
        let account = Account()
        let observer = TestObserver()
        let records = Recorder<Double>()
        observer.kvoController.observe(account, keyPath: \.balance, options: [.new]) { records.append($2) }
        let error = #expect(throws: KVOError.self) { try account.setValue(5, atKeyPath: "balance") }
        #expect(error?.reason == .typeMismatch(expected: "Double", actual: "Int"))
        #expect(error?.keyPath == "balance")
        #expect(error?.typeName == "Account")
        #expect(
            error?.message
                == "KVOMediator: cannot set \"balance\" of Account to a value of type Int: Account.balance is declared "
                + "as Double. Pass a value of type Double: values are not converted, as in Swift (an Int is not a "
                + "Double: convert it first, as Double(value)), or set the property in Swift, where the compiler "
                + "checks its type."
        )
        #expect(account.balance == 0)
        #expect(records.changes.isEmpty)
        try account.setValue(5.0, atKeyPath: "balance")
        #expect(records.changes == [change(\Account.balance, new: 5.0)])
    }

    @Test func nilDoesNotSetANonOptionalPropertyDeepInAChain() {
        let person = Person()
        let observer = TestObserver()
        let counter = CallCounter()
        observer.kvoController.observe(person, keyPath: \.address.street.number) { _, _, _ in counter.increment() }
        let error = #expect(throws: KVOError.self) { try person.setValue(nil, atKeyPath: "address.street.number") }
        #expect(error?.reason == .typeMismatch(expected: "Int", actual: "nil"))
        #expect(
            error?.message
                == "KVOMediator: cannot set \"address.street.number\" of Person to nil: Street.number is declared as "
                + "Int. It is not optional: pass a value of type Int, or declare it as Int? to allow nil."
        )
        #expect(person.address.street.number == 1)
        #expect(counter.count == 0)
    }

    @Test func anUnknownNameThrowsWhatStringObservationThrowsListingTheValidNames() {
        let person = Person()
        let setError = #expect(throws: KVOError.self) { try person.setValue("Paris", atKeyPath: "adress.city") }
        let checkError = #expect(throws: KVOError.self) { try person.validateKeyPath("adress.city") }
        #expect(setError != nil)
        #expect(setError == checkError)
        #expect(
            setError?.message
                == "KVOMediator: Person has no observable property \"adress\" (in key path \"adress.city\" of "
                + "Person). Its observable properties are: address, name, nickname, secondHome, usesNickname. "
                + "A string key path names an @Observed property or a key path the class returns from keyPath(forKey:)."
        )
        let plain = #expect(throws: KVOError.self) { try person.setValue("note", atKeyPath: "plainNote") }
        #expect(plain?.reason == .unknownKey("plainNote"))
        let malformed = #expect(throws: KVOError.self) { try person.setValue("Paris", atKeyPath: "address..city") }
        #expect(malformed?.reason == .malformedKeyPath)
        #expect(person.address.city == "London")
    }

    @Test func aMisspeltNameBeyondANilLinkIsReportedAsUnknownNotAsTheNilLink() {
        let person = Person()
        let error = #expect(throws: KVOError.self) { try person.setValue("Nice", atKeyPath: "secondHome.cty") }
        #expect(error?.reason == .unknownKey("cty"))
        #expect(error?.typeName == "Person")
        #expect(error?.message.contains("Address has no observable property \"cty\"") == true)
        #expect(error?.message.contains("Its observable properties are: city, street.") == true)
    }

    @Test func aNilLinkThrowsNamingItAndTheTypeItWouldHold() {
        let person = Person()
        let error = #expect(throws: KVOError.self) { try person.setValue("Nice", atKeyPath: "secondHome.city") }
        #expect(error?.reason == .nilLink("secondHome"))
        #expect(error?.keyPath == "secondHome.city")
        #expect(
            error?.message
                == "KVOMediator: cannot set \"secondHome.city\" of Person: \"secondHome\" is nil, so there is no "
                + "Address whose city could be set. Set \"secondHome\" first, or write `try?` to skip the set while it "
                + "is nil (what Cocoa's setValue(_:forKeyPath:) does silently)."
        )
        let deeper = #expect(throws: KVOError.self) { try person.setValue(2, atKeyPath: "secondHome.street.number") }
        #expect(deeper?.reason == .nilLink("secondHome"))
        person.secondHome = Address(city: "Nice")
        #expect(throws: Never.self) { try person.setValue(2, atKeyPath: "secondHome.street.number") }
        #expect(person.secondHome?.street.number == 2)
    }

    @Test func aPropertyAnnouncedByHandIsSetByNameWithoutAnnouncingAsByItsSetter() throws {
        let account = Account()
        let observer = TestObserver()
        let records = Recorder<Int>()
        observer.kvoController.observe(account, keyPath: \.revision, options: [.old, .new]) { records.append($2) }
        try account.setValue(1, atKeyPath: "revision")
        #expect(account.revision == 1)
        account.revision = 2
        #expect(records.changes.isEmpty)
        account.willChangeValue(for: \.revision)
        try account.setValue(3, atKeyPath: "revision")
        try account.setValue(4, atKeyPath: "revision")
        account.didChangeValue(for: \.revision)
        #expect(records.changes == [change(\Account.revision, old: 2, new: 4)])
    }

    @Test func setsByNameFromTwoThreadsAreEachDeliveredExactlyOnce() throws {
        let account = Account()
        let observer = TestObserver()
        let logins = Recorder<Int>()
        let balances = Recorder<Any>()
        let failures = CallCounter()
        observer.kvoController.observe(account, keyPath: \.logins, options: [.old, .new]) { logins.append($2) }
        try observer.kvoController.observe(account, keyPath: "balance", options: [.old, .new]) { balances.append($2) }
        let count = 2_000
        let threads = [
            TestThread {
                for value in 1...count {
                    do { try account.setValue(value, atKeyPath: "logins") } catch { failures.increment() }
                }
            },
            TestThread {
                for value in 1...count {
                    do { try account.setValue(Double(value), atKeyPath: "balance") } catch { failures.increment() }
                }
            },
        ]
        for thread in threads { thread.join() }
        #expect(failures.count == 0)
        #expect(logins.changes == (1...count).map { change(\Account.logins, old: $0 - 1, new: $0) })
        #expect(balances.changes.map { $0.oldValue as? Double } == (0..<count).map(Double.init))
        #expect(balances.changes.map { $0.newValue as? Double } == (1...count).map(Double.init))
        #expect(account.logins == count)
        #expect(account.balance == Double(count))
    }
}

extension KVCSetterTests {
    @Test func aPropertyOfAnExistentialTypeIsSetByNameToAValueOfATypeItAdmitsNotToAnOptional() throws {
        let parcel = Parcel()
        let observer = TestObserver()
        let records = Recorder<Any>()
        observer.kvoController.observe(parcel, keyPath: \.contents, options: [.old, .new]) { records.append($2) }
        try parcel.setValue("book", atKeyPath: "contents")
        try parcel.setValue(3.5, atKeyPath: "contents")
        #expect(parcel.contents as? Double == 3.5)
        #expect(records.changes.map { $0.oldValue.map(String.init(describing:)) } == ["0", "book"])
        #expect(records.changes.map { $0.newValue.map(String.init(describing:)) } == ["book", "3.5"])
        #expect(throws: KVOError.self) { try parcel.setValue(nil, atKeyPath: "contents") }  // not optional
        #expect(parcel.contents as? Double == 3.5)
        try parcel.setValue(7, atKeyPath: "label")
        #expect(parcel.label?.description == "7")
        try parcel.setValue(nil, atKeyPath: "label")
        #expect(parcel.label == nil)
        #expect(throws: KVOError.self) { try parcel.setValue((1, 2), atKeyPath: "label") }  // no description
        #expect(parcel.label == nil)
        try parcel.setValue("card", atKeyPath: "note")  // through the key path the class names
        #expect(String(describing: parcel.contents) == "card")
    }

    @Test func anOptionalBoxedInAnyIsSetByNameAsItsValue() throws {
        let account = Account()
        let boxed: Any = Optional("ada@example.com") as Any
        try account.setValue(boxed, atKeyPath: "email")
        #expect(account.email == "ada@example.com")
    }
}
