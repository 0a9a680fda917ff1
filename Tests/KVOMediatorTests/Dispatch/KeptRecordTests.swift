import Foundation
import Testing

@testable import KVOMediator

/// A record is lent its registration for the length of its callback, with no retain: one the callback
/// keeps holds the registration as any copy does, and stays whole after the registration, its controller
/// or token and the observed object are gone (AddressSanitizer sees a use after free or a double free if it
/// does not), and releases it when it is dropped.
@Suite struct KeptRecordTests {
    @Test func recordsAControllerBlockKeepsOutliveTheControllerAndTheObject() {
        let recorder = Recorder<Double>()
        weak var weakCircle: Circle?
        do {
            let circle = Circle()
            weakCircle = circle
            let observer = TestObserver()
            observer.kvoController.observe(circle, keyPath: \.radius, options: [.old, .new, .prior]) { _, _, change in
                recorder.append(change)
            }
            circle.radius = 2
            circle.radius = 3
        }
        #expect(weakCircle == nil)
        let changes = recorder.changes
        #expect(changes.map(\.isPrior) == [true, false, true, false])
        #expect(changes.map(\.oldValue) == [1, 1, 2, 2])
        #expect(changes.map(\.newValue) == [nil, 2, nil, 3])
        #expect(changes.allSatisfy { $0.keyPath == \Circle.radius })
        #expect(changes.allSatisfy { $0.keyPathName == "radius" })
    }

    @Test func recordsATokenHandlerKeepsOutliveTheTokenAndTheObject() throws {
        let kept = Recorder<[String]>()
        do {
            let playlist = Playlist()
            let token = try playlist.observe(\.songs, options: [.old, .new]) { _, change in kept.append(change) }
            playlist.songs = ["a"]
            playlist.mutableArrayValue(for: \.songs).insert("b", at: 0)
            playlist.mutableArrayValue(for: \.songs).remove(at: 1)
            token.invalidate()
        }
        let changes = kept.changes
        #expect(changes.map(\.kind) == [.setting, .insertion, .removal])
        #expect(changes.map(\.indexes) == [nil, IndexSet(integer: 0), IndexSet(integer: 1)])
        #expect(changes.map(\.newValue) == [["a"], ["b"], nil])
        #expect(changes.map(\.oldValue) == [[], nil, ["a"]])
        #expect(changes.allSatisfy { $0.keyPath == \Playlist.songs })
    }

    @Test func recordsOfAnElementsChangeKeptByTheHandlerOutliveTheTokenAndTheCollection() throws {
        let kept = Recorder<[String]>()
        weak var weakAlbum: Album?
        do {
            let album = Album(["a", "b"])
            weakAlbum = album
            let token = try album.observe(each: \.tracks, keyPath: \.title, options: [.old, .new]) { _, change in
                kept.append(change)
            }
            album.tracks[1].title = "B"
            album.tracks[0].title = "A"
            token.invalidate()
        }
        #expect(weakAlbum == nil)
        let changes = kept.changes
        #expect(changes.map(\.oldValue) == [["b"], ["a"]])
        #expect(changes.map(\.newValue) == [["B"], ["A"]])
        #expect(changes.map(\.indexes) == [IndexSet(integer: 1), IndexSet(integer: 0)])
        #expect(changes.allSatisfy { $0.keyPath == \Album.tracks })
    }

    @Test func aKeptRecordHoldsItsRegistrationUntilItIsDropped() throws {
        let circle = Circle()
        let kept = Recorder<Int>()
        weak var registration: _KeyPathHolder?
        do {
            let token = try circle.observe(\.borderWidth, options: [.new]) { _, change in kept.append(change) }
            circle.borderWidth = 2
            registration = kept.changes.first?._keyPathHolder
            token.invalidate()
        }
        #expect(registration != nil)
        #expect(kept.changes.first?.keyPath == \Circle.borderWidth)
        kept.removeAll()
        #expect(registration == nil)
    }

    @Test func recordsOfSeveralRegistrationsOfOnePropertyEachHoldTheirOwn() {
        let circle = Circle()
        let observers = [TestObserver(), TestObserver(), TestObserver()]
        let kept = Recorder<Double>()
        for observer in observers {
            observer.kvoController.observe(circle, keyPath: \.radius, options: [.old, .new]) { _, _, change in
                kept.append(change)
            }
        }
        circle.radius = 5
        for observer in observers { observer.kvoController.unobserveAll() }
        let changes = kept.changes
        #expect(changes.count == 3)
        #expect(Set(changes.compactMap { $0._keyPathHolder.map(ObjectIdentifier.init) }).count == 3)
        #expect(changes.allSatisfy { $0.keyPath == \Circle.radius && $0.oldValue == 1 && $0.newValue == 5 })
    }

    @Test func recordsOfAStringKeyPathKeptByTheBlockOutliveTheController() throws {
        let circle = Circle()
        let kept = Recorder<Any>()
        do {
            let observer = TestObserver()
            try observer.kvoController.observe(circle, keyPath: "name", options: [.old, .new]) { _, _, change in
                kept.append(change)
            }
            circle.name = "ring"
        }
        circle.name = "disc"
        let changes = kept.changes
        #expect(changes.count == 1)
        #expect(changes.first?.oldValue as? String == "circle")
        #expect(changes.first?.newValue as? String == "ring")
        #expect(changes.first?.keyPathName == "name")
    }

    @Test func recordsDeliveredOnAQueueAndKeptOutliveTheirObservation() {
        let queue = DispatchQueue(label: "KeptRecordTests.queue")
        let circle = Circle()
        let kept = Recorder<Int>()
        do {
            let observer = TestObserver()
            observer.kvoController.observe(
                circle,
                keyPath: \.borderWidth,
                options: [.old, .new],
                delivery: .queue(queue)
            ) {
                _,
                change in kept.append(change)
            }
            circle.borderWidth = 3
            queue.sync {}
            observer.kvoController.unobserveAll()
        }
        let changes = kept.changes
        #expect(changes.count == 1)
        #expect(changes.first?.oldValue == 0)
        #expect(changes.first?.newValue == 3)
        #expect(changes.first?.keyPath == \Circle.borderWidth)
    }

    @Test func aRecordKeptByACallbackThatEndsItsOwnObservationStaysWhole() {
        let circle = Circle()
        let kept = Recorder<String>()
        do {
            let observer = TestObserver()
            observer.kvoController.observe(circle, keyPath: \.name, options: [.old, .new]) { observer, _, change in
                observer.kvoController.unobserveAll()
                kept.append(change)
            }
            circle.name = "ring"
        }
        circle.name = "disc"
        let changes = kept.changes
        #expect(changes.count == 1)
        #expect(changes.first?.oldValue == "circle")
        #expect(changes.first?.newValue == "ring")
        #expect(changes.first?.keyPath == \Circle.name)
    }

    @Test func aRecordCopiedAndChangedInTheCallbackIsTheCallbacksOwn() {
        let circle = Circle()
        let observer = TestObserver()
        let kept = Recorder<Int>()
        observer.kvoController.observe(circle, keyPath: \.borderWidth, options: [.new]) { _, _, change in
            var copy = change
            copy.keyPath = \Circle.name
            kept.append(copy)
            kept.append(change)
        }
        circle.borderWidth = 4
        withExtendedLifetime(observer) {}
        let changes = kept.changes
        #expect(changes.map(\.keyPath) == [\Circle.name, \Circle.borderWidth])
        #expect(changes.map(\.newValue) == [4, 4])
    }
}
