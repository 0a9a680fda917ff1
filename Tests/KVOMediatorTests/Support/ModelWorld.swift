import Foundation
import KVOMediator

/// The root object of the reference model's world (Tests/KVOMediatorTests/Model): a direct property,
/// chains of three links with optional links (`a?.b?.value`; `a?.b?.items`, ending at an array;
/// `a?.b?.label`, ending at a declared dependency), a computed property with conditional reads
/// (`pick`), a declared dependency hidden behind a cache (`summary`), an array, a set and a manually
/// announced property, an array with custom storage whose changes are announced with their indexes
/// (`queue`), a set whose mutations are announced by hand (`marks`), a weak link (`peer?.value`), and an
/// array and a set of last links whose `value`s are observed element by element (`crew`, `squad`).
///
/// `@unchecked Sendable` because the threaded runs share it: each property has exactly one writing
/// thread, and only that thread observes what reads it.
final class ModelRoot: KeyValueObservable, @unchecked Sendable {  // one writer per property
    let kvoRegistrar = KVORegistrar()
    func handleKVOError(_ error: KVOError) { modelObjectsHandle(error) }
    @Observed var x = 0
    @Observed var y = 0
    @Observed var flag = false
    @Observed var a: ModelLinkA?
    /// A weak link to a last link: its chain `peer?.value` breaks, with one record, when the last link is released.
    @ObservedWeak var peer: ModelLinkB?
    @Observed var songs: [Int] = []
    @Observed var tags: Set<Int> = []
    /// Last links, held strongly (one may be held twice): `observe(each: \.crew, keyPath: \.value)`.
    @Observed var crew: [ModelLinkB] = []
    /// Last links, held strongly: `observe(each: \.squad, keyPath: \.value)`.
    @Observed var squad: Set<ModelLinkB> = []
    @Observed(automaticallyNotifies: false) var count = 0
    /// Changed by hand with set mutations (`willChange(_:using:for:)`).
    @Observed(automaticallyNotifies: false) var marks: Set<Int> = []
    private var storedLevel = 0
    private var storedQueue: [Int] = []
    private var cachedSummary: String?

    /// Reads `x` or `y`, depending on `flag`: its dependencies change with `flag`.
    var pick: Int { flag ? y : x }

    /// Custom storage, announced by hand; a set also empties the cache of `summary`.
    var level: Int {
        get {
            accessValue(for: \.level)
            return storedLevel
        }
        set {
            willChangeValue(for: \.level)
            storedLevel = newValue
            cachedSummary = nil
            didChangeValue(for: \.level)
        }
    }

    /// Custom storage for an array: assigned, a setting announced by hand; edited in place with
    /// `willChange(_:at:for:)` / `didChange(_:at:for:)` (``editQueueSilently(_:)`` between them).
    var queue: [Int] {
        get {
            accessValue(for: \.queue)
            return storedQueue
        }
        set {
            willChangeValue(for: \.queue)
            storedQueue = newValue
            didChangeValue(for: \.queue)
        }
    }

    /// Changes the queue's storage without announcing anything.
    func editQueueSilently(_ body: (inout [Int]) -> Void) {
        body(&storedQueue)
    }

    /// Reads `level` only when its cache is cold: the dependency is declared in `keyPathsAffectingValue`.
    var summary: String {
        if let cachedSummary { return cachedSummary }
        let made = "L\(level)"
        cachedSummary = made
        return made
    }

    static func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        keyPath == \ModelRoot.summary ? [\ModelRoot.level] : []
    }
}

/// The first link of the root's chain.
final class ModelLinkA: KeyValueObservable, @unchecked Sendable {  // one writer per property
    let kvoRegistrar = KVORegistrar()
    func handleKVOError(_ error: KVOError) { modelObjectsHandle(error) }
    @Observed var b: ModelLinkB?
}

/// The last link of the root's chains (`a?.b?.value`, `a?.b?.items`, `a?.b?.label`), whose properties
/// are observed directly too: a stored value, an array mutated through `mutableArrayValue(for:)`, and
/// custom storage that `value` is declared to affect.
final class ModelLinkB: KeyValueObservable, Hashable, @unchecked Sendable {  // one writer per property
    let kvoRegistrar = KVORegistrar()
    func handleKVOError(_ error: KVOError) { modelObjectsHandle(error) }
    @Observed var value = 0
    @Observed var items: [Int] = []
    private var storedLabel = 0

    /// Custom storage, announced by hand; a change of `value` is a change of it too (declared in
    /// `keyPathsAffectingValue`), with the label itself unchanged.
    var label: Int {
        get {
            accessValue(for: \.label)
            return storedLabel
        }
        set {
            willChangeValue(for: \.label)
            storedLabel = newValue
            didChangeValue(for: \.label)
        }
    }

    init(value: Int) {
        self.value = value
    }

    /// By identity: a set of last links (`ModelRoot.squad`) holds each once.
    static func == (lhs: ModelLinkB, rhs: ModelLinkB) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    static func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        keyPath == \ModelLinkB.label ? [\ModelLinkB.value] : []
    }
}

/// Receives the delegate form's callbacks for the model's runs.
protocol ModelDelegateSink: AnyObject, Sendable {
    func delegateDelivered(
        to observer: ModelObserver,
        keyPath: AnyKeyPath,
        of object: AnyObject,
        change: KVOChange<Any>,
        context: UnsafeMutableRawPointer?
    )
    func observerDeinitialises(_ id: Int)
}

/// An observer of the model's runs: it owns a replaceable controller and answers the delegate form.
final class ModelObserver: KeyValueObserving, @unchecked Sendable {  // `controller` is set by the program's thread only
    let id: Int
    let sink: any ModelDelegateSink
    var controller: KVOController<ModelObserver>?

    init(id: Int, sink: any ModelDelegateSink) {
        self.id = id
        self.sink = sink
    }

    deinit {
        sink.observerDeinitialises(id)
    }

    func observeValue(
        forKeyPath keyPath: AnyKeyPath,
        of object: AnyObject,
        change: KVOChange<Any>,
        context: UnsafeMutableRawPointer?
    ) {
        sink.delegateDelivered(to: self, keyPath: keyPath, of: object, change: change, context: context)
    }
}

/// Holds a root: `\ModelShelf.root.songs` is a chain whose value is an array (a known issue's case).
final class ModelShelf: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var root = ModelRoot()
}

/// A chain `a?.b?.value` whose key paths only the known issue of broken chains uses, so that no other
/// test has ever evaluated them whole.
final class ModelDepot: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var a: ModelLinkA?
}

/// What the model's objects do with a reported misuse: the model drops tokens on purpose
/// (`tokens[i] = nil`, often before any change) and makes unmatched `didChangeValue(for:)` calls on
/// purpose (`unmatchedDidChangeCount`), so those reports are no problem here; anything else is written
/// to standard error, as by default.
func modelObjectsHandle(_ error: KVOError) {
    guard error.reason != .tokenReleased, error.reason != .unmatchedDidChange else { return }
    FileHandle.standardError.write(Data((error.message + "\n").utf8))
}
