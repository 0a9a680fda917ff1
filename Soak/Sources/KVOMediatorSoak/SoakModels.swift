import KVOMediator
import Synchronization

// The observed objects. Each is written by one thread (the owner of its `OwnedGroup`) and may be read
// by any: under that group's `turns` lock, or, for a `RacingLink`, through its own lock, so that the
// only races left are the library's. Every value is a sequence number: the n-th change stores n.

/// A cell with one `@Observed` property: the target of direct registrations.
final class SoakCell: KeyValueObservable, @unchecked Sendable {  // `value` is accessed under its group's turns
    let kvoRegistrar = KVORegistrar()
    @Observed var value = 0

    init() {
        Census.cells.born()
    }

    deinit {
        Census.cells.died()
    }
}

/// The first object of the chain `\.middle?.leaf?.value`; its `middle` is replaced now and then.
final class ChainRoot: KeyValueObservable, @unchecked Sendable {  // `middle` is accessed under its group's turns
    let kvoRegistrar = KVORegistrar()
    @Observed var middle: ChainMiddle?

    init(middle: ChainMiddle) {
        _middle = Observed(wrappedValue: middle)
        Census.chainLinks.born()
    }

    deinit {
        Census.chainLinks.died()
    }
}

/// The chain's middle link; a new one (with a new leaf) replaces it, so the old ones die while observed.
final class ChainMiddle: KeyValueObservable, @unchecked Sendable {  // never written after init
    let kvoRegistrar = KVORegistrar()
    @Observed var leaf: ChainLeaf?

    init(leaf: ChainLeaf) {
        _leaf = Observed(wrappedValue: leaf)
        Census.chainLinks.born()
    }

    deinit {
        Census.chainLinks.died()
    }
}

/// The chain's last link, holding the chain's value.
final class ChainLeaf: KeyValueObservable, @unchecked Sendable {  // `value` is accessed under its group's turns
    let kvoRegistrar = KVORegistrar()
    @Observed var value: Int

    init(value: Int) {
        _value = Observed(wrappedValue: value)
        Census.chainLinks.born()
    }

    deinit {
        Census.chainLinks.died()
    }
}

/// The chain every chain registration observes: three links, the first two optional.
let chainKeyPath: KeyPath<ChainRoot, Int?> & Sendable = \ChainRoot.middle?.leaf?.value

/// An object whose properties are stored behind its own lock and announced by hand (Cocoa's manual
/// notification), so that any thread may read them while their owner writes them: a registration can
/// race the owner's sets without a data race. It serves as a cell (`\.value`) and as the links of a
/// chain (`\.next?.next?.value`).
final class RacingLink: KeyValueObservable, Sendable {
    let kvoRegistrar = KVORegistrar()
    private let storedValue: Atomic<Int>
    private let storedNext: Mutex<RacingLink?>

    init(value: Int = 0, next: RacingLink? = nil) {
        storedValue = Atomic(value)
        storedNext = Mutex(next)
        Census.racingLinks.born()
    }

    deinit {
        Census.racingLinks.died()
    }

    var value: Int {
        get {
            accessValue(for: \.value)
            return storedValue.load(ordering: .relaxed)
        }
        set {
            willChangeValue(for: \.value)
            storedValue.store(newValue, ordering: .relaxed)
            didChangeValue(for: \.value)
        }
    }

    var next: RacingLink? {
        get {
            accessValue(for: \.next)
            return storedNext.withLock { $0 }
        }
        set {
            willChangeValue(for: \.next)
            let old = storedNext.withLock { next in
                defer { next = newValue }
                return next
            }
            didChangeValue(for: \.next)
            // The old link dies here, as an `@Observed` property's old value does: after the change is
            // announced, and outside the lock (its deinit makes the chain read `next` again).
            withExtendedLifetime(old) {}
        }
    }
}

/// The chain of racing links: root, middle, leaf, the first two optional.
let racingChainKeyPath: KeyPath<RacingLink, Int?> & Sendable = \RacingLink.next?.next?.value
