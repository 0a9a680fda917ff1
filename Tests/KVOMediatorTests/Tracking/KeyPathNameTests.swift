import Foundation
import Testing

@testable import KVOMediator

/// Key paths are named as people write them, in records, descriptions and errors.
@Suite struct KeyPathNameTests {
    @Test func recordsNameChainsByTheirPropertyNames() {
        let person = Person()
        let observer = TestObserver()
        let names = Recorded<String>()
        observer.kvoController.observe(person, keyPath: \.address.city) { _, _, change in
            names.append(change.keyPathName)
        }
        observer.kvoController.observe(person, keyPath: \.address.street.number) { _, _, change in
            names.append(change.keyPathName)
        }
        observer.kvoController.observe(person, keyPath: \.name) { _, _, change in names.append(change.keyPathName) }
        person.address.city = "Paris"
        person.address.street.number = 7
        person.name = "Grace"
        #expect(names.values == ["address.city", "address.street.number", "name"])
    }

    @Test func aChainThroughAnOptionalKeepsItsNameWhileItsLinkIsNil() {
        let person = Person()
        person.secondHome = Address(city: "Paris")
        let observer = TestObserver()
        let records = Recorder<String?>()
        observer.kvoController.observe(person, keyPath: \.secondHome?.city, options: [.old, .new]) { _, _, change in
            records.append(change)
        }
        person.secondHome?.city = "Lyon"
        person.secondHome = nil
        person.secondHome = Address(city: "Nice")
        #expect(records.changes.map(\.keyPathName) == ["secondHome.city", "secondHome.city", "secondHome.city"])
        #expect(records.changes.map(\.newValue) == [.some("Lyon"), .some(nil), .some("Nice")])
        #expect(!String(describing: records.changes[0]).contains("<computed"))
        #expect(String(describing: records.changes[0]).contains("keyPath: secondHome.city"))
    }

    @Test func everyFormNamesItsKeyPath() throws {
        let circle = Circle()
        let square = Square()
        let observer = TestObserver()
        let names = Recorded<String>()
        observer.kvoController.observe(circle, keyPaths: [\.radius, \.name]) { _, _, change in
            names.append(change.keyPathName)
        }
        try observer.kvoController.observe(circle, keyPath: "borderWidth") { _, _, change in
            names.append(change.keyPathName)
        }
        observer.kvoController.observe(square, keyPath: \.width) { _, _, change in names.append(change.keyPathName) }
        let token = try square.observe(\.rotation) { _, change in names.append(change.keyPathName) }
        circle.radius = 2
        circle.name = "disc"
        circle.borderWidth = 1
        square.width = 3  // declared in the superclass
        square.rotation = 90
        #expect(names.values == ["radius", "name", "borderWidth", "width", "rotation"])
        token.invalidate()
    }

    @Test func aComputedPropertyIsNamedByItsTypeOrByWhatItReads() {
        let person = NamedPerson()
        let observer = TestObserver()
        let names = Recorded<String>()
        observer.kvoController.observe(person, keyPath: \.fullName) { _, _, change in names.append(change.keyPathName) }
        observer.kvoController.observe(person, keyPath: \.initials) { _, _, change in names.append(change.keyPathName) }
        person.firstName = "Grace"
        #expect(names.values == ["fullName", "<computed from firstName, lastName>"])
        let description = observer.kvoController.debugDescription
        #expect(description.contains("    fullName [.new]"))
        #expect(description.contains("    <computed from firstName, lastName> [.new]"))
    }

    @Test func aRecordMadeByHandIsNamedByItsKeyPathsType() {
        let record = KVOChange<String>(newValue: "x", keyPath: \NamedPerson.fullName)
        #expect(record.keyPathName == "fullName")
        let plain = KVOChange<Int>(newValue: 1, keyPath: \Circle.plainTag)
        #expect(plain.keyPathName == String(describing: \Circle.plainTag))
    }

    @Test func aComputedPropertyIsNotNamedAfterTheOnePropertyItReads() {
        // `area` reads `radius` alone, with the same root: it is not the chain `radius`.
        let circle = Circle()
        let observer = TestObserver()
        let names = Recorded<String>()
        observer.kvoController.observe(circle, keyPath: \.area) { _, _, change in names.append(change.keyPathName) }
        circle.radius = 2
        #expect(names.values == ["<computed from radius>"])
    }

    @Test func aRecordKeepsItsNameAfterItsObservationEnds() throws {
        let person = Person()
        let circle = Circle()
        let records = Recorder<String>()
        let areas = Recorder<Double>()
        let token = try person.observe(\.address.city) { _, change in records.append(change) }
        let areaToken = try circle.observe(\.area) { _, change in areas.append(change) }
        person.address.city = "Paris"
        circle.radius = 2
        token.invalidate()
        areaToken.invalidate()
        #expect(records.changes.map(\.keyPathName) == ["address.city"])
        #expect(areas.changes.map(\.keyPathName) == ["<computed from radius>"])
    }

    @Test func customStorageIsNamedByItsTypeOrNotAtAllNeverByADebugFormat() {
        let thermometer = Thermometer()
        let observer = TestObserver()
        let names = Recorded<String>()
        observer.kvoController.observe(thermometer, keyPath: \.celsius) { _, _, change in
            names.append(change.keyPathName)
        }
        thermometer.celsius = 25
        #expect(names.values.count == 1)
        #expect(names.values.allSatisfy { !$0.contains("0x") && !$0.contains("\\") })
    }
}
