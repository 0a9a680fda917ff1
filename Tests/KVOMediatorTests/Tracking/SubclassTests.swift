import KVOMediator
import Testing

/// A custom-storage base class whose subclass announces changes through its own key paths.
class Gauge: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    var storedLevel = 0

    var level: Int {
        accessValue(for: \Gauge.level)
        return storedLevel
    }
}

final class FancyGauge: Gauge {
    func bump() {
        willChangeValue(for: \.level)  // \FancyGauge.level: a different key path object than \Gauge.level
        storedLevel += 1
        didChangeValue(for: \.level)
    }
}

/// Subclass instances are observed through the subclass's key paths and the base class's alike.
@Suite struct SubclassTests {
    @Test func inheritedPropertyObservedThroughSubclassKeyPath() {
        let square = Square()
        let observer = TestObserver()
        let recorder = Recorder<Int>()
        observer.kvoController.observe(square, keyPath: \Square.width, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        square.width = 5
        #expect(recorder.changes == [change(\Square.width, old: 1, new: 5)])
    }

    @Test func subclassInstanceObservedThroughBaseKeyPath() {
        let square = Square()
        let shape: Shape = square
        let observer = TestObserver()
        let recorder = Recorder<Int>()
        observer.kvoController.observe(shape, keyPath: \Shape.width, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        square.width = 6
        #expect(recorder.changes == [change(\Shape.width, old: 1, new: 6)])
    }

    @Test func baseAndSubclassKeyPathsAreSeparateRegistrationsThatBothFire() {
        let square = Square()
        let observer = TestObserver()
        let viaSquare = Recorder<Int>()
        let viaShape = Recorder<Int>()
        observer.kvoController.observe(square, keyPath: \Square.width, options: [.new]) { _, _, change in
            viaSquare.append(change)
        }
        observer.kvoController.observe(square as Shape, keyPath: \Shape.width, options: [.new]) { _, _, change in
            viaShape.append(change)
        }
        square.width = 2
        #expect(viaSquare.changes == [change(\Square.width, new: 2)])
        #expect(viaShape.changes == [change(\Shape.width, new: 2)])
        #expect(observer.kvoController.observationCount == 2)
    }

    @Test func subclassOwnAndComputedPropertiesAreObservable() {
        let square = Square()
        let observer = TestObserver()
        let rotations = Recorder<Int>()
        let doubled = Recorder<Int>()
        observer.kvoController.observe(square, keyPath: \.rotation, options: [.new]) { _, _, change in
            rotations.append(change)
        }
        observer.kvoController.observe(square, keyPath: \.doubledWidth, options: [.old, .new]) { _, _, change in
            doubled.append(change)
        }
        square.rotation = 90
        square.width = 10
        #expect(rotations.changes == [change(\Square.rotation, new: 90)])
        #expect(doubled.changes == [change(\Square.doubledWidth, old: 2, new: 20)])
    }

    @Test func subclassAnnouncesBaseCustomStorageThroughItsOwnKeyPath() {
        let gauge = FancyGauge()
        let observer = TestObserver()
        let recorder = Recorder<Int>()
        observer.kvoController.observe(gauge as Gauge, keyPath: \Gauge.level, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        gauge.bump()
        gauge.bump()
        #expect(recorder.changes == [change(\Gauge.level, old: 0, new: 1), change(\Gauge.level, old: 1, new: 2)])
    }
}
