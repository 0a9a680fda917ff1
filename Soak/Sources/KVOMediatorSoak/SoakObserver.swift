import KVOMediator
import Synchronization

/// An observer with its controller, as FBKVOController's users write one, that knows when it is
/// deinitialising: a callback given a deinitialising observer is a violation.
final class SoakObserver {
    /// Its controller; set to nil to release the controller while the observer lives on.
    var controller: KVOController<SoakObserver>?
    let deinitialising = Atomic<Bool>(false)
    /// The probes of its registrations: none may be called back once this deinitialises.
    var probes: [SequenceProbe] = []

    init() {
        Census.observers.born()
        controller = KVOController(observer: self)
    }

    deinit {
        // The controller's deinit (ending the registrations) runs after this body: from here on, no
        // callback may start.
        deinitialising.store(true, ordering: .releasing)
        for probe in probes { probe.ended.store(true, ordering: .releasing) }
        Census.observers.died()
    }

    /// Checks a callback's observer.
    static func check(_ observer: SoakObserver, in probe: SequenceProbe) {
        if observer.deinitialising.load(ordering: .acquiring) {
            Violations.shared.report("\(probe.label): a callback was given its deinitialising observer")
        }
    }
}
