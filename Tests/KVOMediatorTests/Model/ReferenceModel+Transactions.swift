import Foundation
import KVOMediator

/// A transaction's deferred changes, in the model: each registration a change reaches is noted with
/// its value before its first change; the collection mutation is kept while it is the only change.
struct ModelTransaction {
    struct Deferred {
        let old: ModelValue
        var changes = 1
        var collection: (kind: KVOChangeKind, indexes: IndexSet?, removed: ModelValue?, inserted: ModelValue?)?
    }

    /// Registrations in the order of their first change.
    var order: [Int] = []
    var deferred: [Int: Deferred] = [:]
}

/// `withKVOTransaction`'s rules: when it ends, each registration whose value it changed gets one
/// record, from its value before its first change to its value at the end (its `.prior` record just
/// before it); a collection changed once keeps its kind and indexes; with `.distinct`, a value that
/// ends where it started gets nothing.
extension ReferenceModel {
    mutating func deferChange(of registration: ModelRegistration) {
        if transaction!.deferred[registration.id] != nil {
            transaction!.deferred[registration.id]!.changes += 1
            transaction!.deferred[registration.id]!.collection = nil
            return
        }
        transaction!.order.append(registration.id)
        transaction!.deferred[registration.id] = .init(old: value(of: registration.key, on: registration.object))
    }

    mutating func deferCollectionChange(
        of registration: ModelRegistration,
        kind: KVOChangeKind,
        indexes: IndexSet?,
        removed: ModelValue?,
        inserted: ModelValue?
    ) {
        guard let entry = transaction!.deferred[registration.id], entry.changes == 1, entry.collection == nil else {
            return
        }
        transaction!.deferred[registration.id]!.collection = (kind, indexes, removed, inserted)
    }

    mutating func endTransaction() {
        let ended = transaction!
        transaction = nil
        for id in ended.order {
            guard let registration = registrations[id], let entry = ended.deferred[id] else { continue }
            let options = registration.options
            if entry.changes == 1, let collection = entry.collection {
                if options.contains(.prior) {
                    deliver(
                        id,
                        ModelRecord(
                            kind: collection.kind,
                            old: options.contains(.old) ? collection.removed : nil,
                            indexes: collection.indexes,
                            isPrior: true
                        )
                    )
                }
                deliver(
                    id,
                    ModelRecord(
                        kind: collection.kind,
                        old: options.contains(.old) ? collection.removed : nil,
                        new: options.contains(.new) ? collection.inserted : nil,
                        indexes: collection.indexes
                    )
                )
                continue
            }
            let new = value(of: registration.key, on: registration.object)
            if options.contains(.distinct), entry.old == new { continue }
            if options.contains(.prior) {
                deliver(id, ModelRecord(old: options.contains(.old) ? entry.old : nil, isPrior: true))
            }
            deliver(
                id,
                ModelRecord(old: options.contains(.old) ? entry.old : nil, new: options.contains(.new) ? new : nil)
            )
        }
    }
}
