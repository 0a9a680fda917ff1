import Foundation
import KVOMediator

/// FBKVOTestCircle's counterpart: a model with observable properties.
///
/// `@unchecked Sendable` because thread tests hand it to other threads; they never write one
/// property from two threads at once.
final class Circle: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var radius = 1.0
    @Observed var borderWidth = 0
    @Observed var name = "circle"
    /// Not observable: a plain stored property.
    var plainTag = 0
    let identifier = "fixed"
    var area: Double { .pi * radius * radius }

    init(radius: Double = 1.0) {
        self.radius = radius
    }
}

/// A base class and a subclass, to observe inherited `@Observed` properties.
class Shape: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var width = 1
    @Observed var label = "shape"
}

final class Square: Shape {
    @Observed var rotation = 0
    var doubledWidth: Int { width * 2 }
}

/// Custom storage announced by hand, as with Cocoa's manual notification.
final class Thermometer: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    private var storedCelsius = 20.0

    var celsius: Double {
        get {
            accessValue(for: \.celsius)
            return storedCelsius
        }
        set {
            willChangeValue(for: \.celsius)
            storedCelsius = newValue
            didChangeValue(for: \.celsius)
        }
    }

    /// Changes the storage without announcing it (to check that nothing fires).
    func setSilently(_ value: Double) {
        storedCelsius = value
    }
}

/// An `@Observed` property with automatic notification turned off; changes are batched by hand.
final class Counter: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed(automaticallyNotifies: false) var count = 0

    func incrementTwice() {
        willChangeValue(for: \.count)
        count += 1
        count += 1
        didChangeValue(for: \.count)
    }
}

/// The observer a controller belongs to, like FBKVOTestObserver.
///
/// `@unchecked Sendable` so that tests may ask for queue and main-actor delivery, which hand the observer
/// to another thread: its controller is used only by the test's own thread, and `name` is immutable.
final class TestObserver: @unchecked Sendable {
    lazy var kvoController = KVOController(observer: self)
    let name: String

    init(name: String = "observer") {
        self.name = name
    }
}

/// Observes `keyPath` of `object` through `observer`'s controller, and returns what it records.
func recordChanges<Object: KeyValueObservable & Sendable, Value>(
    of object: Object,
    _ keyPath: KeyPath<Object, Value>,
    options: KVOOptions = [.old, .new],
    by observer: TestObserver
) -> Recorder<Value> {
    let recorder = Recorder<Value>()
    observer.kvoController.observe(object, keyPath: keyPath, options: options) { _, _, change in
        recorder.append(change)
    }
    return recorder
}

/// Observes the string key path `path` of `object` through `observer`'s controller and returns the recorder
/// its records go to.
func recordChanges<Object: KeyValueObservable & Sendable>(
    of object: Object,
    _ path: String,
    options: KVOOptions = [.old, .new],
    by observer: TestObserver
) throws -> Recorder<Any> {
    let recorder = Recorder<Any>()
    try observer.kvoController.observe(object, keyPath: path, options: options) { _, _, change in
        recorder.append(change)
    }
    return recorder
}

/// Records change records from any thread.
final class Recorder<Value>: @unchecked Sendable {  // `records` is guarded by `lock`
    private let lock = NSLock()
    private var records: [KVOChange<Value>] = []
    private var recordThreads: [Bool] = []

    var changes: [KVOChange<Value>] {
        lock.withLock { records }
    }

    var count: Int {
        lock.withLock { records.count }
    }

    /// Whether each record was delivered on the main thread.
    var onMainThread: [Bool] {
        lock.withLock { recordThreads }
    }

    func append(_ change: KVOChange<Value>) {
        lock.withLock {
            records.append(change)
            recordThreads.append(Thread.isMainThread)
        }
    }

    /// Drops every record (and what the records hold).
    func removeAll() {
        lock.withLock {
            records.removeAll()
            recordThreads.removeAll()
        }
    }
}

/// Counts calls from any thread.
final class CallCounter: @unchecked Sendable {  // `value` is guarded by `lock`
    private let lock = NSLock()
    private var value = 0

    var count: Int {
        lock.withLock { value }
    }

    func increment() {
        lock.withLock { value += 1 }
    }
}

/// Builds the change record the library should deliver, for exact comparisons.
func change<Value>(
    _ keyPath: AnyKeyPath,
    kind: KVOChangeKind = .setting,
    old: Value? = nil,
    new: Value? = nil,
    indexes: IndexSet? = nil,
    prior: Bool = false
) -> KVOChange<Value> {
    KVOChange(kind: kind, oldValue: old, newValue: new, indexes: indexes, isPrior: prior, keyPath: keyPath)
}

extension Array {
    /// The one element of a one-element array; nil otherwise.
    var only: Element? { count == 1 ? first : nil }
}

/// Properties of three shapes for comparing string and typed records: a plain value, an optional and
/// an optional of an optional.
final class Shapes: KeyValueObservable, @unchecked Sendable {  // used by one thread at a time
    let kvoRegistrar = KVORegistrar()
    @Observed var count = 0
    @Observed var label: String? = nil
    @Observed var nested: Int?? = .some(nil)
}

/// A base class declaring what affects `total`, and a subclass declaring something else for the same
/// key path: each class's own answer applies.
class DeclaringBase: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var first = 0
    @Observed var second = 0
    var cachedTotal = 0
    /// Behind a cache, so it reports its own read (what lets a chain find its declarations).
    var total: Int {
        accessValue(for: \.total)
        return cachedTotal
    }

    class func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        keyPath == \DeclaringBase.total ? [\DeclaringBase.first] : []
    }
}

final class DeclaringSub: DeclaringBase {
    override class func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        keyPath == \DeclaringBase.total ? [\DeclaringBase.second] : []
    }
}

/// Holds a `DeclaringBase`, which may be a `DeclaringSub`: `\.link.total` asks the object's own class.
final class DeclaringHolder: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var link: DeclaringBase

    init(_ link: DeclaringBase) {
        self.link = link
    }
}
