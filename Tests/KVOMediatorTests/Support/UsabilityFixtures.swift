import Foundation
import Synchronization

@testable import KVOMediator

/// The compiler's "add stubs" fix-it for `KeyValueObservable`: a computed registrar, a new one per read.
final class ComputedRegistrarModel: KeyValueObservable {
    var kvoRegistrar: KVORegistrar { KVORegistrar() }
    @Observed var value = 0
}

/// Two properties changed in turns by another thread.
final class Pair: KeyValueObservable, @unchecked Sendable {  // `a` and `b` have one writer each
    let kvoRegistrar = KVORegistrar()
    @Observed var a = 0
    @Observed var b = 0
}

/// A model shared across threads with one writer per property: `items` is declared before `a` and `b`,
/// so a string key path that read properties before the one it names would copy `items` mid-write.
final class Node: KeyValueObservable, @unchecked Sendable {  // one writer per property
    let kvoRegistrar = KVORegistrar()
    @Observed var items: [Int] = []
    @Observed var a = 0
    @Observed var b = 0
}

/// Names its computed property, as a type may for what Swift cannot name at run time.
final class NamedPerson: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var firstName = "Ada"
    @Observed var lastName = "Lovelace"
    var fullName: String { firstName + " " + lastName }
    var initials: String { String(firstName.prefix(1)) + String(lastName.prefix(1)) }

    class func keyPathName(for keyPath: AnyKeyPath) -> String? {
        keyPath == \NamedPerson.fullName ? "fullName" : nil
    }
}

/// Where the deinitialisers of view models ran: on the main actor (the main thread, or a job of the
/// main queue, where the test runner runs main-actor work) or elsewhere.
final class DeinitThreads: Sendable {
    private let onMain = Atomic<Int>(0)
    private let offMain = Atomic<Int>(0)

    func record() {
        if isOnMainActor() {
            onMain.wrappingAdd(1, ordering: .relaxed)
        } else {
            offMain.wrappingAdd(1, ordering: .relaxed)
        }
    }

    var counts: (onMain: Int, offMain: Int) {
        (onMain.load(ordering: .relaxed), offMain.load(ordering: .relaxed))
    }
}

/// A main-actor view model observing a model that another thread changes.
@MainActor
final class CounterViewModel {
    private(set) var latest = 0
    lazy var kvoController = KVOController(observer: self)
    private let threads: DeinitThreads

    init(observing cell: SharedCell, threads: DeinitThreads) {
        self.threads = threads
        kvoController.observe(cell, keyPath: \.value, delivery: .mainActor) { viewModel, change in
            viewModel.latest = change.newValue ?? 0
        }
    }

    deinit {
        threads.record()
    }
}

/// Values appended from any thread.
final class Recorded<Value>: @unchecked Sendable {  // `storage` is guarded by `lock`
    private let lock = NSLock()
    private var storage: [Value] = []

    var values: [Value] { lock.withLock { storage } }

    func append(_ value: Value) {
        lock.withLock { storage.append(value) }
    }
}

/// A counter with no synchronisation of its own (the test's lock provides it).
final class UnsafeCounter: @unchecked Sendable {  // guarded by the test's lock
    var value = 0
}
