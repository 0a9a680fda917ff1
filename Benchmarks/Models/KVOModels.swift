import KVOMediator

// The models every implementation observes: the same shape everywhere (an Int `x`, a chain `a.b.c`,
// a computed `sum` of two stored properties), so that only the observation machinery differs.
//
// Models/ is compiled into both executables, KVOBenchmarks and KVOCallgrind, through a symlink in
// each target's folder, not as a library target of its own: in another module, every access to a
// model's property would be a cross-module call with a dynamic exclusivity check (callgrind: a
// plain stored set 13 -> 103 instructions, ours 49 -> 142 even with -cross-module-optimization),
// which is not what an app's own models cost.
//
// Every model is `@unchecked Sendable`: a benchmark hands it to one thread at a time (two_threads
// gives each thread its own object), and KVOMediator's `@Sendable` blocks, Observation's onChange
// closures and the stream drivers receive or capture it.

final class Counter: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var x = 0
}

final class Leaf: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var c = 0
}

final class Middle: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var b = Leaf()
}

final class Root: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var a = Middle()
}

final class Sum: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var first = 0
    @Observed var last = 0
    var sum: Int { first + last }
}

/// The observer that owns a controller, FBKVOController style.
final class Watcher {
    lazy var kvoController = KVOController(observer: self)
}

/// Holds a controller so that a benchmark decides exactly where it is released.
final class ControllerBox {
    var controller: KVOController<Watcher>?
}

/// An observed array, for the collection proxy's rows.
final class List: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var items: [Int] = []
}

/// `doubled` behind a cache, whose dependency on `x` is declared (Cocoa's
/// `keyPathsForValuesAffectingValueForKey:`): once the cache is warm, reading it reads nothing observable.
final class DeclaredDoubler: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var x = 0 {
        didSet { cached = nil }
    }
    private var cached: Int?

    var doubled: Int {
        if let cached { return cached }
        let made = x * 2
        cached = made
        return made
    }

    static func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        keyPath == \DeclaredDoubler.doubled ? [\DeclaredDoubler.x] : []
    }
}

/// `doubled` computed from `x`, tracked: the declared row's equivalent.
final class TrackedDoubler: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var x = 0
    var doubled: Int { x * 2 }
}

/// A chain of five links, `\.a.b.c.d.e`.
final class Link5: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var e = 0
}

final class Link4: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var d = Link5()
}

final class Link3: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var c = Link4()
}

final class Link2: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var b = Link3()
}

final class Link1: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var a = Link2()
}

/// Owns a list: `\.owner.items`, a chain that ends at an array.
final class ListOwner: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var owner = List()
}

/// `\T.x`, made at run time: a key path object of its own, equal to the literal `\Counter.x`
/// (observe_unobserve_equal_literal, in both benchmark targets).
@inline(never)
@_optimize(none)
func runtimeKeyPathX<T: Counter>(_: T.Type) -> KeyPath<T, Int> {
    \T.x
}
