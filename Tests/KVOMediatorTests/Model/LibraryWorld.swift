import Foundation
import KVOMediator

@testable import KVOMediator

/// A weak reference, to see when the library lets an object go.
final class WeakBox {
    weak var object: AnyObject?

    init(_ object: AnyObject) {
        self.object = object
    }
}

/// The library side of a run: the objects, observers, controllers, tokens and streams a program acts
/// on, by slot, as the model holds them. It numbers objects, observers, controllers and registration
/// attempts as the model does.
final class LibraryWorld {
    let journal = ModelJournal()
    let lane = ModelLane()
    var roots: [ModelRoot?] = [nil, nil]
    var linkAs: [ModelLinkA?] = [nil, nil]
    var linkBs: [ModelLinkB?] = [nil, nil]
    var observers: [ModelObserver?] = [nil, nil, nil]
    var orphans: [KVOController<ModelObserver>] = []
    var tokens: [KVOObservation?] = [nil, nil, nil, nil]
    var streams: [ModelStreamDrain?] = [nil, nil, nil]
    var nextRegistration = 0
    /// Every object, observer and controller made, by number, until it is seen gone.
    var objectReferences: [Int: WeakBox] = [:]
    var observerReferences: [Int: WeakBox] = [:]
    var controllerReferences: [Int: WeakBox] = [:]
    private var nextObject = 0
    private var nextObserver = 0
    private var nextController = 0

    /// Performs one operation; for `closeStream`, returns what the stream had received.
    func perform(_ operation: ModelOperation) async -> [ModelRecord]? {
        if performWrite(operation) { return nil }
        switch operation {
        case .newRoot(let slot): roots[slot] = tracked(ModelRoot())
        case .dropRoot(let slot): roots[slot] = nil
        case .newLinkA(let slot): linkAs[slot] = tracked(ModelLinkA())
        case .dropLinkA(let slot): linkAs[slot] = nil
        case .newLinkB(let slot, let value): linkBs[slot] = tracked(ModelLinkB(value: value))
        case .dropLinkB(let slot): linkBs[slot] = nil
        case .newObserver(let slot, let retains):
            let observer = ModelObserver(id: nextObserver, sink: journal)
            observerReferences[nextObserver] = WeakBox(observer)
            nextObserver += 1
            observer.controller = newController(for: observer, retains: retains)
            observers[slot] = observer
        case .dropObserver(let slot): observers[slot] = nil
        case .newController(let slot, let retains):
            if let observer = observers[slot] { observer.controller = newController(for: observer, retains: retains) }
        case .dropController(let slot): performArmed(.dropController(slot))
        case .orphanController(let slot):
            if let controller = observers[slot]?.controller { orphans.append(controller) }
            observers[slot] = nil
        case .dropOrphans: orphans = []
        case .closeStream(let slot):
            guard let stream = streams[slot] else { return [] }
            streams[slot] = nil
            return await stream.drain()
        case .deliverCoalesced: lane.run()
        case .arm(let registration, let action):
            journal.arm(registration) { [weak self] in self?.performArmed(action) }
        case .expectNoRegistrations:
            for (id, reference) in objectReferences.sorted(by: { $0.key < $1.key }) {
                guard let object = reference.object as? any KeyValueObservable else { continue }
                let count = object.kvoRegistrar.subscriptionCount
                if count != 0 { journal.problem("object \(id) still has \(count) registrations after teardown") }
            }
        default: performObserving(operation)
        }
        return nil
    }

    func performArmed(_ action: ArmedAction) {
        switch action {
        case .dropObserver(let slot): observers[slot] = nil
        case .dropController(let slot):
            if let observer = observers[slot] { observer.controller = nil }
        case .invalidateToken(let slot): tokens[slot]?.invalidate()
        }
    }

    private func tracked<Object: AnyObject>(_ object: Object) -> Object {
        objectReferences[nextObject] = WeakBox(object)
        nextObject += 1
        return object
    }

    private func newController(for observer: ModelObserver, retains: Bool) -> KVOController<ModelObserver> {
        let controller = KVOController(observer: observer, retainsObserved: retains)
        let journal = journal
        controller.errorHandler = { error in
            // (The model lets controllers go on purpose while their observers live, as FBKVOController's
            // reused cells did, and observes a key path again on purpose, from other forms, to check that the
            // first registration stays: the debug-build reports of those are no problem here.)
            guard error.reason != .controllerReleased, error.reason != .alreadyObserved else { return }
            journal.problem("error handler: \(error.message)")
        }
        controllerReferences[nextController] = WeakBox(controller)
        nextController += 1
        return controller
    }

    /// How the library's lifetimes, controller counts and tokens differ from the model's, if they do.
    func differences(from model: ReferenceModel) -> [String] {
        var found: [String] = []
        for (id, reference) in objectReferences.sorted(by: { $0.key < $1.key }) {
            let alive = reference.object != nil
            if alive != (model.objects[id] != nil) { found.append("object \(id) is \(alive ? "alive" : "gone")") }
            if !alive { objectReferences[id] = nil }
        }
        let liveObservers = Set(model.observerSlots.compactMap { $0 })
        for (id, reference) in observerReferences.sorted(by: { $0.key < $1.key }) {
            let alive = reference.object != nil
            if alive != liveObservers.contains(id) { found.append("observer \(id) is \(alive ? "alive" : "gone")") }
            if !alive { observerReferences[id] = nil }
        }
        for (id, reference) in controllerReferences.sorted(by: { $0.key < $1.key }) {
            let controller = reference.object as? KVOController<ModelObserver>
            if (controller != nil) != (model.controllers[id] != nil) {
                found.append("controller \(id) is \(controller != nil ? "alive" : "gone")")
            }
            if let controller, model.controllers[id] != nil,
                controller.observationCount != model.observationCount(of: id)
            {
                found.append(
                    "controller \(id) holds \(controller.observationCount) registrations, not \(model.observationCount(of: id))"
                )
            }
            if controller == nil { controllerReferences[id] = nil }
        }
        for slot in tokens.indices {
            let valid = tokens[slot]?.isValid
            let expected = model.tokenSlots[slot].map { model.registrations[$0] != nil }
            if valid != expected { found.append("tokens[\(slot)].isValid is \(valid.map(String.init) ?? "absent")") }
        }
        return found
    }
}
