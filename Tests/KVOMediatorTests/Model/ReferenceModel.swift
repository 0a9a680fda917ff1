import Foundation
import KVOMediator

/// A property of an object of the model's world: what a registration can depend on.
enum ModelField: Hashable {
    case x, y, flag, a, b, value, songs, tags, count, level, items, label, queue, marks, peer, crew, squad
}

/// One property of one object (by the object's number).
struct ModelSlot: Hashable {
    var object: Int
    var field: ModelField
}

/// A `ModelRoot`'s state.
struct RootState {
    var x = 0
    var y = 0
    var flag = false
    var a: Int?
    /// Held weakly: nil once that last link is released.
    var peer: Int?
    var songs: [Int] = []
    var tags: Set<Int> = []
    var count = 0
    var level = 0
    var queue: [Int] = []
    var marks: Set<Int> = []
    /// Last links, by object number, held strongly.
    var crew: [Int] = []
    /// Last links, by object number, held strongly.
    var squad: Set<Int> = []
}

/// A `ModelLinkB`'s state.
struct LinkBState {
    var value: Int
    var items: [Int] = []
    var label = 0
}

/// An object's state: a `ModelRoot`, a `ModelLinkA` (its `b`) or a `ModelLinkB`.
enum ObjectState {
    case root(RootState)
    case linkA(b: Int?)
    case linkB(LinkBState)
}

/// Which front end made a registration.
enum ModelFront: Hashable {
    case controller(Int, ObserveForm)
    case token
    case valueStream(slot: Int)
    case changeStream(slot: Int)
}

/// One live registration, as the model knows it.
struct ModelRegistration {
    let id: Int
    let front: ModelFront
    let object: Int
    let key: ModelKey
    /// What its records carry; for a coalescing one, what it captures (both values, to merge them).
    let options: KVOOptions
    /// For a coalescing registration (`ObserveForm.coalesced`), the options it was made with: its merged
    /// records are cut down to them when the lane runs.
    var coalescing: KVOOptions? = nil

    var controller: Int? {
        if case .controller(let controller, _) = front { controller } else { nil }
    }

    var form: ObserveForm? {
        if case .controller(_, let form) = front { form } else { nil }
    }

    /// Collection mutations reach it with their kind and indexes: every registration of the
    /// collection itself, whatever its form, except a value stream, which wants whole values.
    var getsCollectionKinds: Bool {
        // (A coalescing registration of elements keeps them: only its members' changes merge.)
        guard key.isCollection || key.isEach, coalescing == nil || key.isEach else { return false }
        if case .valueStream = front { return false }
        return true
    }
}

/// A controller: its observer (nil once orphaned) and whether it retains what it observes.
struct ModelControllerState {
    var observer: Int?
    let retains: Bool
}

/// A stream: its registration and every record it must have buffered.
struct ModelStreamState {
    let registration: Int
    var expected: [ModelRecord] = []
    /// Set when its registration was ended from inside a callback during a change: only this many
    /// records are certain (the rest of that change may or may not have reached it).
    var required: Int?
}

/// What one operation must produce.
struct ModelStep {
    /// Every record each registration (not a stream) must receive during the operation, in order.
    var expected: [Int: [ModelRecord]] = [:]
    /// Registrations ended from inside a callback during the operation: they must receive a prefix
    /// of what is expected, since the order of observers of one change is not specified.
    var cutShort: Set<Int> = []
    /// Registrations that may or may not receive the rest of what is expected (see
    /// `announceMaybe(deadPeersOf:)`), with how many records are certain.
    var certain: [Int: Int] = [:]
    /// The armed registration that fired, and how many records it had received by then.
    var trigger: (registration: Int, records: Int)?
    /// The stream closed by the operation.
    var closedStream: ModelStreamState?
}

/// The reference model: plain dictionaries and arrays stating which records each live registration
/// must receive. It knows nothing of the library; it encodes Cocoa KVO's and FBKVOController's rules
/// as the library documents them.
struct ReferenceModel {
    var objects: [Int: ObjectState] = [:]
    var rootSlots: [Int?] = [nil, nil]
    var linkASlots: [Int?] = [nil, nil]
    var linkBSlots: [Int?] = [nil, nil]
    /// Observers by slot, and each live observer's controller.
    var observerSlots: [Int?] = [nil, nil, nil]
    var observerControllers: [Int: Int] = [:]
    var controllers: [Int: ModelControllerState] = [:]
    var orphans: [Int] = []
    var registrations: [Int: ModelRegistration] = [:]
    /// Tokens by slot: each holds its registration's number.
    var tokenSlots: [Int?] = [nil, nil, nil, nil]
    var streamSlots: [ModelStreamState?] = [nil, nil, nil]
    var armed: (registration: Int, action: ArmedAction)?
    var nextObject = 0
    var nextObserver = 0
    var nextController = 0
    var nextRegistration = 0
    var step = ModelStep()
    var firedAction: ArmedAction?
    /// The transaction running, if one is (`ReferenceModel+Transactions`).
    var transaction: ModelTransaction?
    /// The records waiting on the held lane (`ReferenceModel+Coalescing`).
    var lane = ModelLaneState()

    // MARK: Reading the world

    func root(_ id: Int) -> RootState {
        guard case .root(let state)? = objects[id] else { preconditionFailure("object \(id) is not a live root") }
        return state
    }

    mutating func updateRoot(_ id: Int, _ change: (inout RootState) -> Void) {
        var state = root(id)
        change(&state)
        objects[id] = .root(state)
    }

    func linkA(_ id: Int) -> Int? {
        guard case .linkA(let b)? = objects[id] else { preconditionFailure("object \(id) is not a live link A") }
        return b
    }

    func linkB(_ id: Int) -> LinkBState {
        guard case .linkB(let state)? = objects[id] else { preconditionFailure("object \(id) is not a live link B") }
        return state
    }

    mutating func updateLinkB(_ id: Int, _ change: (inout LinkBState) -> Void) {
        var state = linkB(id)
        change(&state)
        objects[id] = .linkB(state)
    }

    /// The object a target names right now.
    func object(_ target: ModelTarget) -> Int? {
        switch target {
        case .root(let slot): rootSlots[slot]
        case .linkB(let slot): linkBSlots[slot]
        }
    }

    /// The last link of a root's chain, when the chain is whole.
    func chainEnd(of root: Int) -> Int? {
        self.root(root).a.flatMap { linkA($0) }
    }

    func value(of key: ModelKey, on object: Int) -> ModelValue {
        switch key {
        case .x: .int(root(object).x)
        case .chain: chainEnd(of: object).map { .int(linkB($0).value) } ?? .null
        case .chainItems: chainEnd(of: object).map { .list(linkB($0).items) } ?? .null
        case .chainLabel: chainEnd(of: object).map { .int(linkB($0).label) } ?? .null
        case .pick: .int(root(object).flag ? root(object).y : root(object).x)
        case .summary: .text("L\(root(object).level)")
        case .level: .int(root(object).level)
        case .songs: .list(root(object).songs)
        case .tags: .bag(root(object).tags)
        case .count: .int(root(object).count)
        case .value: .int(linkB(object).value)
        case .items: .list(linkB(object).items)
        case .label: .int(linkB(object).label)
        case .queue: .list(root(object).queue)
        case .marks: .bag(root(object).marks)
        case .peerValue: root(object).peer.map { .int(linkB($0).value) } ?? .null
        case .eachCrewValue: .list(root(object).crew.map { linkB($0).value })
        case .eachSquadValue: .list(root(object).squad.map { linkB($0).value }.sorted())
        }
    }

    /// The properties a registration reads now, which are those it is subscribed to: every change of
    /// one re-reads the key path.
    func dependencies(of registration: ModelRegistration) -> [ModelSlot] {
        let object = registration.object
        switch registration.key {
        case .x: return [ModelSlot(object: object, field: .x)]
        case .chain, .chainItems, .chainLabel:
            var slots = [ModelSlot(object: object, field: .a)]
            if let a = root(object).a {
                slots.append(ModelSlot(object: a, field: .b))
                if let b = linkA(a) {
                    slots += Self.lastLinkFields(of: registration.key).map { ModelSlot(object: b, field: $0) }
                }
            }
            return slots
        case .pick:
            let state = root(object)
            return [ModelSlot(object: object, field: .flag), ModelSlot(object: object, field: state.flag ? .y : .x)]
        case .summary, .level: return [ModelSlot(object: object, field: .level)]
        case .songs: return [ModelSlot(object: object, field: .songs)]
        case .tags: return [ModelSlot(object: object, field: .tags)]
        case .count: return [ModelSlot(object: object, field: .count)]
        case .queue: return [ModelSlot(object: object, field: .queue)]
        case .marks: return [ModelSlot(object: object, field: .marks)]
        case .peerValue:
            let link = ModelSlot(object: object, field: .peer)
            return [link] + (root(object).peer.map { [ModelSlot(object: $0, field: .value)] } ?? [])
        case .value, .items, .label:
            return Self.lastLinkFields(of: registration.key).map { ModelSlot(object: object, field: $0) }
        case .eachCrewValue:
            let members = Set(root(object).crew).sorted().map { ModelSlot(object: $0, field: .value) }
            return [ModelSlot(object: object, field: .crew)] + members
        case .eachSquadValue:
            let members = root(object).squad.sorted().map { ModelSlot(object: $0, field: .value) }
            return [ModelSlot(object: object, field: .squad)] + members
        }
    }

    /// What a key read on a last link (directly or at the end of a chain) depends on: `label`, and the
    /// `value` it is declared to depend on.
    static func lastLinkFields(of key: ModelKey) -> [ModelField] {
        switch key {
        case .chain, .value: [.value]
        case .chainItems, .items: [.items]
        case .chainLabel, .label: [.label, .value]
        default: preconditionFailure("\(key) is not read on a last link")
        }
    }

    /// Whether a registration's callbacks can run: a controller's only while its observer lives.
    func isCallable(_ registration: ModelRegistration) -> Bool {
        guard let controller = registration.controller else { return true }
        return controllers[controller]?.observer != nil
    }

    /// Live registrations in the order they were made.
    var orderedRegistrations: [ModelRegistration] {
        registrations.keys.sorted().compactMap { registrations[$0] }
    }

    /// How many registrations a controller holds (its `observationCount`).
    func observationCount(of controller: Int) -> Int {
        registrations.values.count { $0.controller == controller }
    }

    /// The controller of the observer in `slot`, if both exist.
    func controller(ofObserverIn slot: Int) -> Int? {
        observerSlots[slot].flatMap { observerControllers[$0] }
    }

    // MARK: Delivering

    /// Appends a record to what a registration must receive, if it can be called; an armed one fires.
    /// `member`: the member whose change an element-wise registration's record is, if it is one.
    mutating func deliver(_ id: Int, _ record: ModelRecord, member: Int? = nil) {
        guard let registration = registrations[id], isCallable(registration) else { return }
        if registration.coalescing != nil {
            return registration.key.isEach ? merge(record, of: member, into: id) : merge(record, into: id)
        }
        var received: Int
        switch registration.front {
        case .valueStream(let slot), .changeStream(let slot):
            streamSlots[slot]!.expected.append(record)
            received = streamSlots[slot]!.expected.count
        case .controller, .token:
            step.expected[id, default: []].append(record)
            received = step.expected[id]!.count
        }
        if let armed, armed.registration == id {
            self.armed = nil
            firedAction = armed.action
            step.trigger = (id, received)
        }
    }

    /// Ends a registration: no record reaches it any more.
    mutating func end(_ id: Int) {
        registrations[id] = nil
        if armed?.registration == id { armed = nil }
    }
}
