import Foundation
import KVOMediator
import Observation
import Testing

/// A KeyValueObservable class that also conforms to `Observable` is tracked by `withObservationTracking`
/// for every kind of change KVOMediator announces, and by KVOMediator's own observers as before.
@Suite struct ObservationBridgeTests {
    @Test func aSetOfAStoredPropertyFiresOnChange() {
        let contact = BridgedContact()
        #expect(observationFires(tracking: { _ = contact.first }, after: { contact.first = "Grace" }) == 1)
        #expect(contact.first == "Grace")
    }

    @Test func aSetOfAPropertyThatWasNotReadDoesNotFire() {
        let contact = BridgedContact()
        #expect(observationFires(tracking: { _ = contact.first }, after: { contact.last = "Hopper" }) == 0)
    }

    @Test func onChangeRunsBeforeTheStoreAsForObservable() {
        let contact = BridgedContact()
        let seen = Recorded<String>()
        withObservationTracking {
            _ = contact.first
        } onChange: {
            seen.append(contact.first)
        }
        contact.first = "Grace"
        #expect(seen.values == ["Ada"])
    }

    @Test func aComputedPropertyFiresOnAChangeOfEachInput() {
        let contact = BridgedContact()
        #expect(observationFires(tracking: { _ = contact.fullName }, after: { contact.first = "Grace" }) == 1)
        #expect(observationFires(tracking: { _ = contact.fullName }, after: { contact.last = "Hopper" }) == 1)
    }

    @Test func aChainFiresOnAChangeOfEachLink() {
        let contact = BridgedContact()
        let oldAddress = contact.address
        #expect(
            observationFires(tracking: { _ = contact.address.city }, after: { contact.address.city = "Paris" }) == 1
        )
        #expect(
            observationFires(tracking: { _ = contact.address.city }, after: { contact.address = BridgedAddress() }) == 1
        )
        // Tracked again through the new link, the old one is out of the chain.
        #expect(observationFires(tracking: { _ = contact.address.city }, after: { oldAddress.city = "Rome" }) == 0)
    }

    @Test func indexedAndSetMutationAnnouncementsByHandFire() {
        let playlist = BridgedPlaylist()
        #expect(observationFires(tracking: { _ = playlist.tracks }, after: { playlist.append("Intro") }) == 1)
        #expect(playlist.tracks == ["Intro"])
        #expect(observationFires(tracking: { _ = playlist.genres }, after: { playlist.addGenres(["jazz"]) }) == 1)
        #expect(observationFires(tracking: { _ = playlist.tracks }, after: { playlist.addGenres(["folk"]) }) == 0)
    }

    @Test func aWeakPropertyFiresOnASetAndOnItsReferentsDeath() {
        let playlist = BridgedPlaylist()
        let first = BridgedAddress()
        #expect(observationFires(tracking: { _ = playlist.delegate }, after: { playlist.delegate = first }) == 1)
        weak var probe: BridgedAddress?
        let fired = Recorded<Int>()
        do {
            let second = BridgedAddress()
            probe = second
            playlist.delegate = second
            withObservationTracking {
                _ = playlist.delegate?.city
            } onChange: {
                fired.append(1)
            }
        }
        #expect(probe == nil)
        #expect(fired.values.count == 1)
        #expect(playlist.delegate == nil)
        withExtendedLifetime(first) {}
    }

    @Test func manualWillAndDidOfCustomStorageFire() {
        let contact = BridgedContact()
        #expect(observationFires(tracking: { _ = contact.note }, after: { contact.note = "met at the lab" }) == 1)
        #expect(contact.note == "met at the lab")
    }

    @Test func manualWillAndDidOfAPropertyAnnouncedByHandFireOnceAndItsSetsNot() {
        let contact = BridgedContact()
        #expect(observationFires(tracking: { _ = contact.score }, after: { contact.addTwoPoints() }) == 1)
        #expect(observationFires(tracking: { _ = contact.score }, after: { contact.score = 7 }) == 0)
        #expect(contact.score == 7)
    }

    @Test func manualWillChangeOfAComputedPropertyFiresWhatReadsItsInputs() {
        let contact = BridgedContact()
        let fired = observationFires {
            _ = contact.first
        } after: {
            contact.willChangeValue(for: \.fullName)
            contact.didChangeValue(for: \.fullName)
        }
        #expect(fired == 1)
    }

    @Test func anArrayProxyMutationFires() {
        let contact = BridgedContact()
        let tags = contact.mutableArrayValue(for: \.tags)
        #expect(observationFires(tracking: { _ = contact.tags }, after: { tags.append("math") }) == 1)
        #expect(observationFires(tracking: { _ = contact.tags.count }, after: { tags.remove(at: 0) }) == 1)
        #expect(contact.tags == [])
    }

    @Test func aSetProxyMutationFires() {
        let contact = BridgedContact()
        let labels = contact.mutableSetValue(for: \.labels)
        #expect(observationFires(tracking: { _ = contact.labels }, after: { labels.insert("friend") }) == 1)
        #expect(contact.labels == ["friend"])
    }

    @Test func proxyMutationsReachBothWorldsOnceEachWithTheirKinds() {
        let contact = BridgedContact()
        let observer = TestObserver()
        let records = Recorded<KVOChange<[String]>>()
        observer.kvoController.observe(contact, keyPath: \.tags, options: [.new, .old]) { _, _, change in
            records.append(change)
        }
        let loop = ObservationLoop { _ = contact.tags }
        let tags = contact.mutableArrayValue(for: \.tags)
        tags.append("math")
        tags.insert("poetry", at: 0)
        #expect(loop.tally.count == 2)
        #expect(records.values.map(\.kind) == [.insertion, .insertion])
        #expect(records.values.map(\.indexes) == [IndexSet(integer: 0), IndexSet(integer: 0)])
        #expect(records.values.map(\.newValue) == [["math"], ["poetry"]])
        #expect(contact.tags == ["poetry", "math"])
    }

    @Test func aControllerATokenAndObservationEachSeeEveryChangeOnceInOrder() throws {
        let contact = BridgedContact()
        let observer = TestObserver()
        let controllerValues = Recorded<String>()
        observer.kvoController.observe(contact, keyPath: \.fullName, options: [.new]) { _, _, change in
            controllerValues.append(change.newValue!)
        }
        let tokenValues = Recorded<String>()
        let token = try contact.observe(\.first) { _, change in tokenValues.append(change.newValue!) }
        let loop = ObservationLoop { _ = contact.fullName }
        contact.first = "Grace"
        contact.last = "Hopper"
        contact.first = "Hedy"
        #expect(controllerValues.values == ["Grace Lovelace", "Grace Hopper", "Hedy Hopper"])
        #expect(tokenValues.values == ["Grace", "Hedy"])
        #expect(loop.tally.count == 3)
        token.invalidate()
    }

    @Test func theLibrarysOwnEvaluationsAreNotTrackedByObservation() {
        let contact = BridgedContact()
        let observer = TestObserver()
        let fired = observationFires {
            observer.kvoController.observe(contact, keyPath: \.fullName, options: [.initial, .new]) { _, _, _ in }
        } after: {
            contact.first = "Grace"
        }
        #expect(fired == 0)
        #expect(observer.kvoController.observationCount == 1)
    }

    @Test func classesThatDoNotConformToObservableAreInvisibleToIt() {
        let contact = UnbridgedContact()
        #expect(observationFires(tracking: { _ = contact.fullName }, after: { contact.first = "Grace" }) == 0)
        #expect(!reportsToObservation(UnbridgedContact.self))
        #expect(reportsToObservation(BridgedContact.self))
        let observer = TestObserver()
        let values = Recorded<String>()
        observer.kvoController.observe(contact, keyPath: \.fullName) { _, _, change in values.append(change.newValue!) }
        contact.last = "Hopper"
        #expect(values.values == ["Grace Hopper"])
    }
}

/// Subclasses of a bridged class are bridged, for inherited properties and their own.
@Suite struct ObservationBridgeSubclassTests {
    @Test func inheritedAndOwnPropertiesOfASubclassFire() {
        let square = BridgedSquare()
        #expect(observationFires(tracking: { _ = square.width }, after: { square.width = 2 }) == 1)
        #expect(observationFires(tracking: { _ = square.rotation }, after: { square.rotation = 90 }) == 1)
        #expect(observationFires(tracking: { _ = square.doubledWidth }, after: { square.width = 3 }) == 1)
        #expect(square.doubledWidth == 6)
    }

    @Test func aSubclassThatAddsOnlyObservableIsNotBridged() {
        let square = ObservableOnlySubclass()
        #expect(!reportsToObservation(ObservableOnlySubclass.self))
        #expect(observationFires(tracking: { _ = square.rotation }, after: { square.rotation = 90 }) == 0)
        #expect(observationFires(tracking: { _ = square.width }, after: { square.width = 2 }) == 0)
    }
}

/// Observation is told one key path object per property (the bridge's table), and every property of a
/// class with more than the table holds is still tracked.
@Suite struct ObservationBridgeKeyPathTests {
    @Test func eachOfTwentyPropertiesFiresForItsOwnSetOnly() {
        let wide = BridgedWide()
        for (index, property) in BridgedWide.properties.enumerated() {
            #expect(
                observationFires(tracking: { _ = wide[keyPath: property] }, after: { wide[keyPath: property] = 1 }) == 1
            )
            let other = BridgedWide.properties[(index + 1) % BridgedWide.properties.count]
            #expect(
                observationFires(tracking: { _ = wide[keyPath: property] }, after: { wide[keyPath: other] = 2 }) == 0
            )
        }
    }

    @Test func firstReadsOfTwoPropertiesOnTwoThreadsAreEachTracked() {
        for _ in 0..<200 {
            let wide = BridgedWide()
            let fired = CallTally()
            let ready = DispatchGroup()
            for property in [\BridgedWide.p3, \BridgedWide.p4] {
                ready.enter()
                Thread {
                    withObservationTracking {
                        _ = wide[keyPath: property]
                    } onChange: {
                        fired.record()
                    }
                    ready.leave()
                }.start()
            }
            ready.wait()
            wide.p3 = 1
            wide.p4 = 1
            #expect(fired.count == 2)
        }
    }
}
