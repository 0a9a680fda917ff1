import KVOMediator
import Testing

/// Reading by string key path with errors: a misspelt name throws where the subscript gives nil; a nil
/// link reads as nil; a typed read throws on a value of another type.
@Suite struct KVCReadTests {
    @Test func aReadByNameReturnsTheValueAtEachDepth() throws {
        let person = Person(name: "Ada", city: "London")
        person.address.street.number = 4
        #expect(try person.value(atKeyPath: "name") as? String == "Ada")
        #expect(try person.value(atKeyPath: "address.city") as? String == "London")
        #expect(try person.value(atKeyPath: "address.street.number") as? Int == 4)
        #expect(try person.value(atKeyPath: "address") as? Address === person.address)
    }

    @Test func aMisspeltNameThrowsListingTheValidNamesWhereTheSubscriptGivesNil() {
        let person = Person()
        let readError = #expect(throws: KVOError.self) { try person.value(atKeyPath: "adress.city") }
        let checkError = #expect(throws: KVOError.self) { try person.validateKeyPath("adress.city") }
        #expect(readError != nil)
        #expect(readError == checkError)
        #expect(
            readError?.message
                == "KVOMediator: Person has no observable property \"adress\" (in key path \"adress.city\" of "
                + "Person). Its observable properties are: address, name, nickname, secondHome, usesNickname. "
                + "A string key path names an @Observed property or a key path the class returns from keyPath(forKey:)."
        )
        #expect(person[kvoKeyPath: "adress.city"] == nil)
        let malformed = #expect(throws: KVOError.self) { try person.value(atKeyPath: "address.") }
        #expect(malformed?.reason == .malformedKeyPath)
    }

    @Test func aNilLinkReadsAsNilAndANameBeyondItIsStillChecked() throws {
        let person = Person()
        #expect(try person.value(atKeyPath: "secondHome.city") == nil)
        #expect(try person.value(atKeyPath: "secondHome") == nil)
        let error = #expect(throws: KVOError.self) { try person.value(atKeyPath: "secondHome.cty") }
        #expect(error?.reason == .unknownKey("cty"))
        person.secondHome = Address(city: "Nice")
        #expect(try person.value(atKeyPath: "secondHome.city") as? String == "Nice")
    }

    @Test func anOptionalPropertyReadsAsItsValueNotAsAnOptional() throws {
        let account = Account()
        #expect(try account.value(atKeyPath: "email") == nil)
        account.email = "ada@example.com"
        let value = try account.value(atKeyPath: "email")
        #expect(value.map { type(of: $0) == String.self } == true)
        #expect(value as? String == "ada@example.com")
    }

    @Test func aTypedReadReturnsTheValueOrThrowsNamingBothTypes() throws {
        let person = Person(city: "London")
        #expect(try person.value(atKeyPath: "address.city", as: String.self) == "London")
        let error = #expect(throws: KVOError.self) { try person.value(atKeyPath: "address.city", as: Int.self) }
        #expect(error?.reason == .typeMismatch(expected: "Int", actual: "String"))
        #expect(error?.keyPath == "address.city")
        #expect(
            error?.message
                == "KVOMediator: the value at \"address.city\" of Person is of type String, not Int. Ask for String "
                + "(value(atKeyPath: \"address.city\", as: String.self)), or read the property in Swift, where the "
                + "compiler checks its type."
        )
    }

    @Test func aTypedReadOfANilValueIsNilWhateverTypeIsAskedFor() throws {
        let account = Account()
        #expect(try account.value(atKeyPath: "email", as: String.self) == nil)
        #expect(try account.value(atKeyPath: "email", as: Int.self) == nil)
        #expect(try account.value(atKeyPath: "companion.name", as: String.self) == nil)
        account.companion = GuideDog()
        #expect(try account.value(atKeyPath: "companion", as: GuideDog.self) === account.companion)
        #expect(try account.value(atKeyPath: "companion.tricks", as: Int.self) == 0)
    }
}
