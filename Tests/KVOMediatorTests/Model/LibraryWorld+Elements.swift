import Foundation
import KVOMediator

/// The library side of element-wise observation: a root's crew (an array) and squad (a set) of last
/// links, their `value`s observed element by element in the controller's block form, as a token and as a
/// change stream. A set's records are compared with their values sorted (they come in no order).
extension LibraryWorld {
    /// `observe(root, each: \.crew (or \.squad), keyPath: \.value, options:)`, in the block form, or
    /// delivered on the world's held lane, coalescing (`ObserveForm.coalesced`).
    func observeEach(_ key: ModelKey, of root: ModelRoot, number: Int, _ call: ControllerCall) {
        let journal = journal
        let check = DeliveryCheck(registration: number, object: ObjectIdentifier(root), observer: call.observer)
        let options = call.options
        if call.form == .coalesced {
            let delivery = KVOQueueDelivery.queue(call.lane.queue, coalescing: .latest)
            if key == .eachSquadValue {
                journal.expect(\ModelRoot.squad, for: number)
                call.controller.observe(root, each: \.squad, keyPath: \.value, options: options, delivery: delivery) {
                    observer,
                    change in
                    let record = ModelRecord(sortingValuesOf: change)
                    journal.receive(record, for: check, observer: observer, object: nil, keyPath: change.keyPath)
                }
            } else {
                journal.expect(\ModelRoot.crew, for: number)
                call.controller.observe(root, each: \.crew, keyPath: \.value, options: options, delivery: delivery) {
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
            }
            return
        }
        if key == .eachSquadValue {
            journal.expect(\ModelRoot.squad, for: number)
            call.controller.observe(root, each: \.squad, keyPath: \.value, options: options) { observer, root, change in
                let record = ModelRecord(sortingValuesOf: change)
                journal.receive(record, for: check, observer: observer, object: root, keyPath: change.keyPath)
            }
        } else {
            journal.expect(\ModelRoot.crew, for: number)
            call.controller.observe(root, each: \.crew, keyPath: \.value, options: options) { observer, root, change in
                journal.receive(
                    ModelRecord(change),
                    for: check,
                    observer: observer,
                    object: root,
                    keyPath: change.keyPath
                )
            }
        }
    }

    /// `tokens[slot] = try root.observe(each: \.crew (or \.squad), keyPath: \.value, options:)`.
    func newEachToken(_ key: ModelKey, slot: Int, root: ModelRoot, number: Int, options: KVOOptions) {
        let journal = journal
        let check = DeliveryCheck(registration: number, object: ObjectIdentifier(root), observer: nil)
        do {
            if key == .eachSquadValue {
                journal.expect(\ModelRoot.squad, for: number)
                tokens[slot] = try root.observe(each: \.squad, keyPath: \.value, options: options) { root, change in
                    let record = ModelRecord(sortingValuesOf: change)
                    journal.receive(record, for: check, observer: nil, object: root, keyPath: change.keyPath)
                }
            } else {
                journal.expect(\ModelRoot.crew, for: number)
                tokens[slot] = try root.observe(each: \.crew, keyPath: \.value, options: options) { root, change in
                    journal.receive(
                        ModelRecord(change),
                        for: check,
                        observer: nil,
                        object: root,
                        keyPath: change.keyPath
                    )
                }
            }
        } catch {
            journal.problem("a token of \(key) threw \(error)")
        }
    }

    /// `streams[slot] = try root.changes(forEach: \.crew (or \.squad), keyPath: \.value, options:)`.
    func openEachChanges(_ key: ModelKey, slot: Int, root: ModelRoot, options: KVOOptions) {
        do {
            if key == .eachSquadValue {
                let changes = try root.changes(forEach: \.squad, keyPath: \.value, options: options)
                streams[slot] = ModelStreamDrain(changes) { ModelRecord(sortingValuesOf: $0) }
            } else {
                let changes = try root.changes(forEach: \.crew, keyPath: \.value, options: options)
                streams[slot] = ModelStreamDrain(changes) { ModelRecord($0) }
            }
        } catch {
            journal.problem("a stream of \(key) threw \(error)")
        }
    }
}
