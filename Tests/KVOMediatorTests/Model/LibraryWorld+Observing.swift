import Foundation
import KVOMediator

/// Something done with a key's typed key path, on the object that has it (a generic function that
/// `WorldKeyPaths.use` calls with the concrete types).
protocol TypedKeyPathUser {
    func use<Object: KeyValueObservable & SendableMetatype, Value: ModelValueConvertible & Sendable>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value>
    )
}

/// The key paths of the world's keys.
enum WorldKeyPaths {
    static func use(_ key: ModelKey, on object: AnyObject, _ user: some TypedKeyPathUser) {
        if let b = object as? ModelLinkB {
            switch key {
            case .value: user.use(b, \ModelLinkB.value)
            case .items: user.use(b, \ModelLinkB.items)
            case .label: user.use(b, \ModelLinkB.label)
            default: preconditionFailure("a last link has no key \(key)")
            }
            return
        }
        guard let root = object as? ModelRoot else { return }
        switch key {
        case .x: user.use(root, \ModelRoot.x)
        case .chain: user.use(root, \ModelRoot.a?.b?.value)
        case .pick: user.use(root, \ModelRoot.pick)
        case .summary: user.use(root, \ModelRoot.summary)
        case .level: user.use(root, \ModelRoot.level)
        case .songs: user.use(root, \ModelRoot.songs)
        case .tags: user.use(root, \ModelRoot.tags)
        case .count: user.use(root, \ModelRoot.count)
        case .chainItems: user.use(root, \ModelRoot.a?.b?.items)
        case .chainLabel: user.use(root, \ModelRoot.a?.b?.label)
        case .queue: user.use(root, \ModelRoot.queue)
        case .marks: user.use(root, \ModelRoot.marks)
        case .peerValue: user.use(root, \ModelRoot.peer?.value)
        case .value, .items, .label: preconditionFailure("a root has no key \(key)")
        case .eachCrewValue, .eachSquadValue: preconditionFailure("\(key) has no key path of its own")
        }
    }

    static func partial(_ key: ModelKey) -> PartialKeyPath<ModelRoot> {
        switch key {
        case .x: \ModelRoot.x
        case .chain: \ModelRoot.a?.b?.value
        case .pick: \ModelRoot.pick
        case .summary: \ModelRoot.summary
        case .level: \ModelRoot.level
        case .songs: \ModelRoot.songs
        case .tags: \ModelRoot.tags
        case .count: \ModelRoot.count
        case .chainItems: \ModelRoot.a?.b?.items
        case .chainLabel: \ModelRoot.a?.b?.label
        case .queue: \ModelRoot.queue
        case .marks: \ModelRoot.marks
        case .peerValue: \ModelRoot.peer?.value
        case .value, .items, .label: preconditionFailure("a root has no key \(key)")
        case .eachCrewValue, .eachSquadValue: preconditionFailure("\(key) has no key path of its own")
        }
    }

    static func partialOfLinkB(_ key: ModelKey) -> PartialKeyPath<ModelLinkB> {
        switch key {
        case .value: \ModelLinkB.value
        case .items: \ModelLinkB.items
        case .label: \ModelLinkB.label
        default: preconditionFailure("a last link has no key \(key)")
        }
    }
}

extension LibraryWorld {
    func object(_ target: ModelTarget) -> AnyObject? {
        switch target {
        case .root(let slot): roots[slot]
        case .linkB(let slot): linkBs[slot]
        }
    }

    func newRegistrationNumber() -> Int {
        defer { nextRegistration += 1 }
        return nextRegistration
    }

    func performObserving(_ operation: ModelOperation) {
        switch operation {
        case .observe(let slot, let form, let target, let keys, let options):
            let numbers = keys.map { _ in newRegistrationNumber() }
            guard let observer = observers[slot], let controller = observer.controller, let object = object(target)
            else {
                return
            }
            let call = ControllerCall(
                controller: controller,
                observer: observer.id,
                form: form,
                options: options,
                lane: lane
            )
            if keys.count == 1, keys[0].isEach, let root = object as? ModelRoot {
                observeEach(keys[0], of: root, number: numbers[0], call)
            } else if let root = object as? ModelRoot {
                observe(root, keyPaths: keys.map(WorldKeyPaths.partial), keys: keys, numbers: numbers, call)
            } else if let b = object as? ModelLinkB {
                observe(b, keyPaths: keys.map(WorldKeyPaths.partialOfLinkB), keys: keys, numbers: numbers, call)
            }
        case .unobserveKey(let slot, let target, let key, let byString):
            guard let controller = observers[slot]?.controller, let object = object(target) else { return }
            if key == .eachCrewValue {
                controller.unobserve(object as? ModelRoot, each: \.crew, keyPath: \.value)
            } else if key == .eachSquadValue {
                controller.unobserve(object as? ModelRoot, each: \.squad, keyPath: \.value)
            } else if byString, let path = key.stringPath {
                if let root = object as? ModelRoot { controller.unobserve(root, keyPath: path) }
                if let b = object as? ModelLinkB { controller.unobserve(b, keyPath: path) }
            } else {
                if let root = object as? ModelRoot { controller.unobserve(root, keyPath: WorldKeyPaths.partial(key)) }
                if let b = object as? ModelLinkB { controller.unobserve(b, keyPath: WorldKeyPaths.partialOfLinkB(key)) }
            }
        case .unobserveObject(let slot, let target):
            observers[slot]?.controller?.unobserve(object(target))
        case .unobserveAll(let slot):
            observers[slot]?.controller?.unobserveAll()
        case .newToken(let slot, let target, let key, let options):
            let number = newRegistrationNumber()
            guard let object = object(target) else { return }
            if key.isEach, let root = object as? ModelRoot {
                return newEachToken(key, slot: slot, root: root, number: number, options: options)
            }
            WorldKeyPaths.use(key, on: object, TokenMaking(world: self, slot: slot, number: number, options: options))
        case .invalidateToken(let slot): tokens[slot]?.invalidate()
        case .dropToken(let slot): tokens[slot] = nil
        case .openValues(let slot, let target, let key):
            _ = newRegistrationNumber()
            guard let object = object(target), streams[slot] == nil else { return }
            WorldKeyPaths.use(key, on: object, StreamOpening(world: self, slot: slot, options: nil))
        case .openChanges(let slot, let target, let key, let options):
            _ = newRegistrationNumber()
            guard let object = object(target), streams[slot] == nil else { return }
            if key.isEach, let root = object as? ModelRoot {
                return openEachChanges(key, slot: slot, root: root, options: options)
            }
            WorldKeyPaths.use(key, on: object, StreamOpening(world: self, slot: slot, options: options))
        default: preconditionFailure("not an observing operation: \(operation)")
        }
    }

    /// One observe call of a controller, in its form: typed forms one key at a time, `keyPaths:`
    /// forms all keys in one call, routed back by key path.
    private func observe<Object: KeyValueObservable & SendableMetatype>(
        _ object: Object,
        keyPaths: [PartialKeyPath<Object>],
        keys: [ModelKey],
        numbers: [Int],
        _ call: ControllerCall
    ) {
        let journal = journal
        let checks = numbers.map {
            DeliveryCheck(registration: $0, object: ObjectIdentifier(object), observer: call.observer)
        }
        switch call.form {
        case .block, .action, .coalesced:
            for (key, check) in zip(keys, checks) {
                WorldKeyPaths.use(key, on: object, ControllerObservation(journal: journal, call: call, check: check))
            }
        case .keyPathsBlock, .delegate:
            let number = numbers[0]
            for (keyPath, check) in zip(keyPaths, checks) { journal.route(call: number, keyPath: keyPath, to: check) }
            if call.form == .delegate {
                let context = UnsafeMutableRawPointer(bitPattern: number + 1)
                call.controller.observe(object, keyPaths: keyPaths, options: call.options, context: context)
            } else {
                call.controller.observe(object, keyPaths: keyPaths, options: call.options) { observer, object, change in
                    let record = ModelRecord(untyped: change, of: type(of: change.keyPath).valueType)
                    journal.receive(record, ofCall: number, observer: observer, object: object, keyPath: change.keyPath)
                }
            }
        case .string:
            for (key, check) in zip(keys, checks) {
                guard let path = key.stringPath else { continue }
                journal.expect(\Object.[kvoKeyPath: path], for: check.registration)
                do {
                    // Every other registration observes the path as its values' type (`as:`): the same
                    // registration, whose records, given back as `Any`, are the other form's.
                    if check.registration.isMultiple(of: 2), let type = key.stringValueType {
                        try observe(object, path: path, as: type, call, check: check)
                        continue
                    }
                    try call.controller.observe(object, keyPath: path, options: call.options) {
                        observer,
                        object,
                        change in
                        let record = ModelRecord(untyped: change)
                        journal.receive(record, for: check, observer: observer, object: object, keyPath: change.keyPath)
                    }
                } catch {
                    journal.problem("observing \"\(path)\" threw \(error)")
                }
            }
        }
    }
}

extension LibraryWorld {
    /// `observe(_:keyPath:as:…)` of `path`, its records given to the journal as the untyped form's: each
    /// value as `Any` (a nil of an optional `Value` is an `Any` holding nil, as the untyped form gives it).
    fileprivate func observe<Object: KeyValueObservable & SendableMetatype, Value>(
        _ object: Object,
        path: String,
        as type: Value.Type,
        _ call: ControllerCall,
        check: DeliveryCheck
    ) throws {
        let journal = journal
        try call.controller.observe(object, keyPath: path, as: type, options: call.options) {
            observer,
            object,
            change in
            let untyped = KVOChange<Any>(
                kind: change.kind,
                oldValue: change.oldValue.map { $0 as Any },
                newValue: change.newValue.map { $0 as Any },
                indexes: change.indexes,
                isPrior: change.isPrior,
                keyPath: change.keyPath
            )
            journal.receive(
                ModelRecord(untyped: untyped),
                for: check,
                observer: observer,
                object: object,
                keyPath: change.keyPath
            )
        }
    }
}

extension ModelKey {
    /// The type the string form observes this key's values as, `as:` (optional where a link may be nil).
    var stringValueType: Any.Type? {
        switch self {
        case .x, .count, .value: Int.self
        case .chain, .peerValue: Int?.self
        case .songs, .items: [Int].self
        case .chainItems: [Int]?.self
        case .tags, .marks: Set<Int>.self
        default: nil
        }
    }
}

/// A controller, its observer's number, and the form and options of one observe call.
struct ControllerCall {
    let controller: KVOController<ModelObserver>
    let observer: Int
    let form: ObserveForm
    let options: KVOOptions
    /// Where a `.coalesced` call delivers.
    let lane: ModelLane
}

/// The typed forms of a controller: a block, or an action.
private struct ControllerObservation: TypedKeyPathUser {
    let journal: ModelJournal
    let call: ControllerCall
    let check: DeliveryCheck

    func use<Object: KeyValueObservable & SendableMetatype, Value: ModelValueConvertible & Sendable>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value>
    ) {
        let (journal, check) = (journal, check)
        journal.expect(keyPath, for: check.registration)
        if call.form == .coalesced {
            let delivery = KVOQueueDelivery.queue(call.lane.queue, coalescing: .latest)
            call.controller.observe(object, keyPath: keyPath, options: call.options, delivery: delivery) {
                observer,
                change in
                journal.receive(
                    ModelRecord(change),
                    for: check,
                    observer: observer,
                    object: nil,
                    keyPath: change.keyPath
                )
            }
        } else if call.form == .action {
            call.controller.observe(object, keyPath: keyPath, options: call.options) { observer in
                { change in
                    journal.receive(
                        ModelRecord(change),
                        for: check,
                        observer: observer,
                        object: nil,
                        keyPath: change.keyPath
                    )
                }
            }
        } else {
            call.controller.observe(object, keyPath: keyPath, options: call.options) { observer, object, change in
                journal.receive(
                    ModelRecord(change),
                    for: check,
                    observer: observer,
                    object: object,
                    keyPath: change.keyPath
                )
            }
        }
    }
}

/// A token: `try object.observe(keyPath, options:) { object, change in … }`.
private struct TokenMaking: TypedKeyPathUser {
    let world: LibraryWorld
    let slot: Int
    let number: Int
    let options: KVOOptions

    func use<Object: KeyValueObservable & SendableMetatype, Value: ModelValueConvertible & Sendable>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value>
    ) {
        let journal = world.journal
        let check = DeliveryCheck(registration: number, object: ObjectIdentifier(object), observer: nil)
        journal.expect(keyPath, for: number)
        do {
            world.tokens[slot] = try object.observe(keyPath, options: options) { object, change in
                journal.receive(ModelRecord(change), for: check, observer: nil, object: object, keyPath: change.keyPath)
            }
        } catch {
            journal.problem("a token of \(keyPath) threw \(error)")
        }
    }
}

/// A stream: `values(for:)` when `options` is nil, `changes(for:options:)` otherwise.
private struct StreamOpening: TypedKeyPathUser {
    let world: LibraryWorld
    let slot: Int
    let options: KVOOptions?

    func use<Object: KeyValueObservable & SendableMetatype, Value: ModelValueConvertible & Sendable>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value>
    ) {
        do {
            if let options {
                let changes = try object.changes(for: keyPath, options: options)
                world.streams[slot] = ModelStreamDrain(changes) { ModelRecord($0) }
            } else {
                let values = try object.values(for: keyPath)
                world.streams[slot] = ModelStreamDrain(values) { ModelRecord(new: $0.modelValue) }
            }
        } catch {
            world.journal.problem("a stream of \(keyPath) threw \(error)")
        }
    }
}
