import Foundation
import KVOMediator

/// A transaction's deferred changes, in the model: each registration a change reaches is noted with
/// its value before its first change; the collection mutation is kept while it is the only change. An
/// element-wise registration is noted once per member whose `value` changes (the library registers with
/// each member), and once for its crew.
struct ModelTransaction {
    /// A registration, and the member it was reached through (nil: its own key).
    struct Key: Hashable {
        let registration: Int
        let member: Int?
    }

    struct Deferred {
        let old: ModelValue
        var changes = 1
        var collection: (kind: KVOChangeKind, indexes: IndexSet?, removed: ModelValue?, inserted: ModelValue?)?
    }

    /// Registrations (and members) in the order of their first change.
    var order: [Key] = []
    var deferred: [Key: Deferred] = [:]
}

/// `withKVOTransaction`'s rules: when it ends, each registration whose value it changed gets one
/// record, from its value before its first change to its value at the end (its `.prior` record just
/// before it); a collection changed once keeps its kind and indexes; with `.distinct`, a value that
/// ends where it started gets nothing.
extension ReferenceModel {
    mutating func deferChange(of registration: ModelRegistration, changing slot: ModelSlot) {
        let member = elementPlace(of: registration, changing: slot) != nil ? slot.object : nil
        let key = ModelTransaction.Key(registration: registration.id, member: member)
        if transaction!.deferred[key] != nil {
            transaction!.deferred[key]!.changes += 1
            transaction!.deferred[key]!.collection = nil
            return
        }
        transaction!.order.append(key)
        transaction!.deferred[key] = .init(old: reading(registration, changing: slot))
    }

    mutating func deferCollectionChange(
        of registration: ModelRegistration,
        kind: KVOChangeKind,
        indexes: IndexSet?,
        removed: ModelValue?,
        inserted: ModelValue?
    ) {
        let key = ModelTransaction.Key(registration: registration.id, member: nil)
        guard let entry = transaction!.deferred[key], entry.changes == 1, entry.collection == nil else { return }
        transaction!.deferred[key]!.collection = (kind, indexes, removed, inserted)
    }

    mutating func endTransaction() {
        let ended = transaction!
        transaction = nil
        for key in ended.order {
            let id = key.registration
            guard let registration = registrations[id], let entry = ended.deferred[key] else { continue }
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
            // (A member's record is at its indexes when the transaction ends, as the library tells it then.)
            let changed = key.member.map { ModelSlot(object: $0, field: .value) }
            let place = changed.flatMap { elementPlace(of: registration, changing: $0) }
            if changed != nil, (place?.count ?? 0) == 0 { continue }  // it left the collection
            let new =
                changed.map { reading(registration, changing: $0) }
                ?? value(of: registration.key, on: registration.object)
            let isMembership = registration.key.isEach && key.member == nil
            if options.contains(.distinct), !isMembership, entry.old == new { continue }
            let old = Self.recorded(entry.old, at: place)
            if options.contains(.prior) {
                deliver(
                    id,
                    ModelRecord(old: options.contains(.old) ? old : nil, indexes: place?.indexes, isPrior: true),
                    member: key.member
                )
            }
            deliver(
                id,
                ModelRecord(
                    old: options.contains(.old) ? old : nil,
                    new: options.contains(.new) ? Self.recorded(new, at: place) : nil,
                    indexes: place?.indexes
                ),
                member: key.member
            )
        }
    }
}
