import Testing

@testable import KVOMediator

/// A base class whose `@Observed` property a subclass overrides with a computed one.
class Dial: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var position = 0
    @Observed var detent = 0
}

/// Its `position` is computed from `detent`: the same key path, `\Dial.position`, reads other storage.
final class DetentDial: Dial {
    override var position: Int {
        get { detent * 10 }
        set { detent = newValue / 10 }
    }
}

/// Holds a dial: chains through it reach `position`, stored or overridden.
final class DialHolder: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var dial: Dial?
}

/// An attachment whose title is observable.
final class Attachment: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var title = ""
}

/// `summary` is declared to depend on the attachment's title; the attachment itself is a plain
/// property, so what the declaration reads depends on the object's state.
final class Memo: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var summary = ""
    var attachment: Attachment?

    class func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        keyPath == \Memo.summary ? [\Memo.attachment?.title] : []
    }
}

/// Registrations after the first of a key path on a class skip evaluating it (``DirectSlotCache``);
/// they must behave exactly as the first.
@Suite struct DirectSlotCacheTests {
    @Test func laterRegistrationsOfAPropertyDeliverTheSameRecords() throws {
        let observer = TestObserver()
        let recorders = (0..<3).map { _ in Recorder<Double>() }
        let circles = (0..<3).map { _ in Circle() }
        for (circle, recorder) in zip(circles, recorders) {
            circle.radius = 4
            observer.kvoController.observe(circle, keyPath: \.radius, options: [.initial, .old, .new, .prior]) {
                _,
                _,
                change in
                recorder.append(change)
            }
        }
        // The first registration taught the cache (unless caches are off); the others took the cached path.
        let cached = DirectSlotCache.shared.field(ofEqual: \Circle.radius, on: Circle.self) != nil
        #expect(cached == CacheSwitch.cachesAreOn)
        for circle in circles { circle.radius = 5 }
        for recorder in recorders {
            #expect(
                recorder.changes == [
                    change(\Circle.radius, new: 4),
                    change(\Circle.radius, old: 4, prior: true),
                    change(\Circle.radius, old: 4, new: 5),
                ]
            )
        }
        let token = try circles[0].observe(\.radius, options: [.initial, .new]) { _, _ in }
        token.invalidate()
        #expect(circles.allSatisfy { $0.kvoRegistrar.subscriptionCount == 1 })
    }

    @Test func aSubclassOverridingThePropertyIsEvaluatedForItself() {
        let observer = TestObserver()
        let dial = Dial()
        let dialRecorder = Recorder<Int>()
        observer.kvoController.observe(dial, keyPath: \Dial.position, options: [.new]) { _, _, change in
            dialRecorder.append(change)
        }
        dial.position = 1
        // The same key path on the subclass reads `detent`, not `position`'s storage.
        let detentDial = DetentDial()
        let detentRecorder = Recorder<Int>()
        observer.kvoController.observe(detentDial as Dial, keyPath: \Dial.position, options: [.new]) { _, _, change in
            detentRecorder.append(change)
        }
        detentDial.detent = 2
        detentDial.position = 30
        #expect(dialRecorder.changes.map(\.newValue) == [1])
        #expect(detentRecorder.changes.map(\.newValue) == [20, 30])
    }

    @Test func declaredDependenciesAreReadForEveryObject() {
        let observer = TestObserver()
        let counter = CallCounter()
        // Without an attachment, evaluating `summary` reads only `summary`.
        observer.kvoController.observe(Memo(), keyPath: \.summary) { _, _, _ in counter.increment() }
        let memo = Memo()
        memo.attachment = Attachment()
        observer.kvoController.observe(memo, keyPath: \.summary) { _, _, _ in counter.increment() }
        memo.attachment?.title = "minutes"
        memo.summary = "notes"
        #expect(counter.count == 2)
    }

    @Test func aFullCacheReplacesEntriesOneAtATime() {
        let keyPaths: [AnyKeyPath] = [\Circle.radius, \Circle.borderWidth, \Circle.name, \Circle.plainTag]
        // One place: each recording replaces the last.
        let single = DirectSlotCache(capacity: 1, isOn: true)
        for (field, keyPath) in keyPaths.enumerated() {
            single.record(field, of: keyPath, on: Circle.self)
            #expect(single.field(of: keyPath, on: Circle.self) == field)
        }
        #expect(single.count == 1)
        #expect(single.field(of: \Circle.radius, on: Circle.self) == nil)
        #expect(single.field(of: \Circle.plainTag, on: Square.self) == nil)
        // Several places: never more entries than places, and the newest is always there.
        let small = DirectSlotCache(capacity: 3, isOn: true)
        for (field, keyPath) in keyPaths.enumerated() {
            small.record(field, of: keyPath, on: Circle.self)
            #expect(small.field(of: keyPath, on: Circle.self) == field)
            #expect(small.count <= 4)
        }
        #expect(small.field(of: \Circle.plainTag, on: Square.self) == nil)
    }

    @Test func aPinnedEntryIsFoundUntilItsLastUnpinWhateverIsRecorded() {
        let (radius, border, name): (AnyKeyPath, AnyKeyPath, AnyKeyPath) =
            (\Circle.radius, \Circle.borderWidth, \Circle.name)
        let single = DirectSlotCache(capacity: 1, isOn: true)
        single.pin(0, of: radius, on: Circle.self)
        single.pin(0, of: radius, on: Circle.self)
        single.pin(2, of: name, on: Circle.self)
        // Recordings take the one place; the pinned entries are still found.
        single.record(1, of: border, on: Circle.self)
        #expect(single.field(of: border, on: Circle.self) == 1)
        #expect(single.field(of: radius, on: Circle.self) == 0)
        #expect(single.field(of: name, on: Circle.self) == 2)
        #expect(single.field(of: radius, on: Square.self) == nil)
        single.unpin(radius, on: Circle.self)
        #expect(single.field(of: radius, on: Circle.self) == 0)
        single.unpin(radius, on: Circle.self)
        #expect(single.field(of: radius, on: Circle.self) == nil)
        // An unpin of what is not pinned does nothing: `name` keeps its one pin.
        single.unpin(radius, on: Circle.self)
        single.unpin(name, on: Square.self)
        #expect(single.field(of: name, on: Circle.self) == 2)
        single.unpin(name, on: Circle.self)
        #expect(single.field(of: name, on: Circle.self) == nil)
        #expect(single.field(of: border, on: Circle.self) == 1)
    }

    /// A chain's last link delivers its setter's values only while the link is that property: after
    /// the link becomes a subclass whose override computes it from other storage, the chain's values
    /// are the override's.
    @Test func aChainThroughASubclassOverrideDeliversTheOverridesValues() {
        let holder = DialHolder()
        let plain = Dial()
        holder.dial = plain
        let observer = TestObserver()
        let recorder = Recorder<Int?>()
        observer.kvoController.observe(holder, keyPath: \.dial?.position, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        plain.position = 4
        let detent = DetentDial()
        holder.dial = detent
        detent.detent = 2
        detent.detent = 3
        #expect(recorder.changes.map(\.oldValue) == [0, 4, 0, 20].map { Optional(Optional($0)) })
        #expect(recorder.changes.map(\.newValue) == [4, 0, 20, 30].map { Optional(Optional($0)) })
    }
}
