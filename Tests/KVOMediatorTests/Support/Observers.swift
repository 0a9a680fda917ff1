import Foundation
import KVOMediator

/// Receives changes through an action: an unapplied method, FBKVOController's selector.
final class ActionObserver {
    lazy var kvoController = KVOController(observer: self)
    let radii = Recorder<Double>()
    let names = Recorder<String>()

    func radiusDidChange(_ change: KVOChange<Double>) {
        radii.append(change)
    }

    func nameDidChange(_ change: KVOChange<String>) {
        names.append(change)
    }
}

/// Receives changes through the Cocoa-style delegate method, with a context.
///
/// `@unchecked Sendable` for queue delivery: what it receives is behind `lock`, and its controller is used
/// only by the test's own thread.
final class ContextObserver: KeyValueObserving, @unchecked Sendable {
    struct Delivery {
        let keyPath: AnyKeyPath
        let object: ObjectIdentifier
        let change: KVOChange<Any>
        let context: UnsafeMutableRawPointer?
    }

    lazy var kvoController = KVOController(observer: self)
    private let lock = NSLock()
    private var received: [Delivery] = []

    var deliveries: [Delivery] {
        lock.withLock { received }
    }

    func observeValue(
        forKeyPath keyPath: AnyKeyPath,
        of object: AnyObject,
        change: KVOChange<Any>,
        context: UnsafeMutableRawPointer?
    ) {
        let delivery = Delivery(keyPath: keyPath, object: ObjectIdentifier(object), change: change, context: context)
        lock.withLock { received.append(delivery) }
    }
}

/// An object that observes itself through its own controller.
final class SelfObserver: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    lazy var kvoController = KVOController(observer: self)
    @Observed var value = 0
    let seen = Recorder<Int>()

    init() {
        kvoController.observe(self, keyPath: \.value, options: [.new]) { observer, _, change in
            observer.seen.append(change)
        }
    }
}

/// Compares an untyped record with the typed one expected.
func matches<Value: Equatable>(_ record: KVOChange<Any>, _ expected: KVOChange<Value>) -> Bool {
    record.kind == expected.kind && record.isPrior == expected.isPrior && record.indexes == expected.indexes
        && record.keyPath == expected.keyPath && (record.oldValue as? Value) == expected.oldValue
        && (record.newValue as? Value) == expected.newValue && (record.oldValue == nil) == (expected.oldValue == nil)
        && (record.newValue == nil) == (expected.newValue == nil)
}
