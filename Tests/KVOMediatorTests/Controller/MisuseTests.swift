import Foundation
import Testing

@testable import KVOMediator

/// Misuse gets a clear error naming the type, the key path and the fix: never memory corruption, never silence.
@Suite struct MisuseTests {
    @Test func aComputedRegistrarStopsTheProgramWithAMessageNamingTheTypeAndTheFix() async throws {
        let result = try await #require(
            processExitsWith: .failure,
            observing: [\.standardErrorContent]
        ) {
            let model = ComputedRegistrarModel()
            let observer = TestObserver()
            observer.kvoController.observe(model, keyPath: \.value) { _, _, _ in }
            model.value = 1
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("ComputedRegistrarModel.kvoRegistrar"))
        #expect(message.contains("let kvoRegistrar = KVORegistrar()"))
    }

    @Test func aComputedRegistrarStopsATokenAndAStringKeyPathToo() async {
        await #expect(processExitsWith: .failure) {
            _ = try? ComputedRegistrarModel().observe(\.value) { _, _ in }
        }
        await #expect(processExitsWith: .failure) {
            let observer = TestObserver()
            try? observer.kvoController.observe(ComputedRegistrarModel(), keyPath: "value") { _, _, _ in }
        }
    }

    @Test func observingForAnObserverThatHasGoneRegistersNothingAndSaysWhy() throws {
        let circle = Circle()
        let controller = KVOController(observer: TestObserver())  // a temporary: gone at once
        let reported = Recorded<KVOError>()
        controller.errorHandler = { reported.append($0) }
        controller.observe(circle, keyPath: \.radius) { _, _, _ in Issue.record("called without an observer") }
        #expect(controller.observationCount == 0)
        #expect(controller.observer == nil)
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
        let error = try #require(reported.values.first)
        #expect(error.reason == .observerGone)
        #expect(error.typeName == "Circle")
        #expect(error.keyPath == "radius")
        #expect(error.message.contains("TestObserver"))
        #expect(error.message.contains("KVOController(observer: self)"))
        circle.radius = 2
        #expect(throws: KVOError.self) {
            try controller.observe(circle, keyPath: "name") { _, _, _ in }
        }
        #expect(controller.observationCount == 0)
    }

    @Test func aTypoAfterANilLinkIsReportedWithTheLinkTypesNames() throws {
        let person = Person()
        let observer = TestObserver()
        #expect(person.secondHome == nil)
        let error = try #require(throws: KVOError.self) {
            try observer.kvoController.observe(person, keyPath: "secondHome.cty") { _, _, _ in }
        }
        #expect(error.reason == .unknownKey("cty"))
        #expect(error.typeName == "Person")
        #expect(error.message.contains("Address has no observable property \"cty\""))
        #expect(error.message.contains("Its observable properties are: city, street."))
        let deeper = try #require(throws: KVOError.self) { try person.validateKeyPath("secondHome.street.numbr") }
        #expect(deeper.typeName == "Person")
        #expect(deeper.message.contains("Street has no observable property \"numbr\""))
        #expect(deeper.message.contains("Its observable properties are: number."))
        let beyondAValue = try #require(throws: KVOError.self) { try person.validateKeyPath("secondHome.city.count") }
        #expect(beyondAValue.message.contains("is a String, not a KeyValueObservable object"))
        #expect(beyondAValue.typeName == "Person")
        try person.validateKeyPath("secondHome.street.number")
        #expect(observer.kvoController.observationCount == 0)
    }

    @Test func aValidPathPastANilLinkRegistersAndFiresOnceTheLinkIsSet() throws {
        let person = Person()
        let observer = TestObserver()
        let cities = Recorder<Any>()
        try observer.kvoController.observe(person, keyPath: "secondHome.city") { _, _, change in cities.append(change) }
        person.secondHome = Address(city: "Paris")
        person.secondHome?.city = "Lyon"
        #expect(cities.changes.map { $0.newValue as? String } == ["Paris", "Lyon"])
    }
}
