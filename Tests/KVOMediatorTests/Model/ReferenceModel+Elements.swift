import Foundation
import KVOMediator

/// Element-wise observation (`observe(each: \.crew, keyPath: \.value)`): a change of a member's `value`
/// is a `.setting` at the member's indexes in the crew now, one old and one new value for each; a
/// mutation of the crew through its proxy keeps its kind and indexes, with the values of the members
/// that leave (old) and join (new); a set of the whole crew is a `.setting` of every old and new value
/// (with `.distinct`, nothing when they read the same, in order).
extension ReferenceModel {
    /// The indexes in its root's crew of the member whose `value` is `slot`, for an element-wise
    /// registration that `slot`'s change reaches; nil for any other registration or slot.
    func elementPlace(of registration: ModelRegistration, changing slot: ModelSlot) -> IndexSet? {
        guard registration.key == .eachCrewValue, slot.field == .value else { return nil }
        let crew = root(registration.object).crew
        return IndexSet(crew.indices.filter { crew[$0] == slot.object })
    }

    /// What a change of `slot` reads for `registration`: the changed member's `value`, for an
    /// element-wise registration reached by a member; the registration's key's value otherwise.
    func reading(_ registration: ModelRegistration, changing slot: ModelSlot) -> ModelValue {
        if elementPlace(of: registration, changing: slot) != nil { return .int(linkB(slot.object).value) }
        return value(of: registration.key, on: registration.object)
    }

    /// A value as a record carries it: a member's value once for each of its indexes (`place`), or as it is.
    static func recorded(_ value: ModelValue, at place: IndexSet?) -> ModelValue {
        guard let place, case .int(let member) = value else { return value }
        return .list(Array(repeating: member, count: place.count))
    }

    /// `roots[root].crew = members`: a set of the whole array.
    mutating func assignCrew(of root: Int, _ members: [Int]) {
        change(ModelSlot(object: root, field: .crew)) { $0.updateRoot(root) { $0.crew = members } }
    }

    /// A mutation of a root's crew through `mutableArrayValue(for: \.crew)`; the edit's elements are
    /// `linkBs` slots (nothing happens if one is empty).
    mutating func editCrew(of root: Int, _ edit: ArrayEdit) {
        guard let edit = edit.mapElements({ linkBSlots[$0] }) else { return }
        let crew = self.root(root).crew
        let slot = ModelSlot(object: root, field: .crew)
        func values(_ members: [Int]) -> ModelValue { .list(members.map { linkB($0).value }) }
        func insertion(_ members: [Int], at indexes: IndexSet) {
            mutateCollection(slot, kind: .insertion, indexes: indexes, removed: nil, inserted: values(members)) {
                $0.updateRoot(root) { state in
                    for (member, index) in zip(members, indexes) { state.crew.insert(member, at: index) }
                }
            }
        }
        func removal(at indexes: IndexSet) {
            guard !indexes.isEmpty else { return }  // nothing to announce
            let removed = indexes.map { crew[$0] }
            mutateCollection(slot, kind: .removal, indexes: indexes, removed: values(removed), inserted: nil) {
                $0.updateRoot(root) { state in
                    for index in indexes.reversed() { state.crew.remove(at: index) }
                }
            }
        }
        switch edit {
        case .append(let member): insertion([member], at: IndexSet(integer: crew.count))
        case .appendTwo(let first, let second):
            insertion([first, second], at: IndexSet(integersIn: crew.count..<crew.count + 2))
        case .insert(let member, let index): insertion([member], at: IndexSet(integer: index))
        case .remove(let index): removal(at: IndexSet(integer: index))
        case .removeSeveral(let indexes): removal(at: indexes)
        case .removeAll: removal(at: IndexSet(integersIn: 0..<crew.count))
        case .replace(let index, let member):
            mutateCollection(
                slot,
                kind: .replacement,
                indexes: IndexSet(integer: index),
                removed: values([crew[index]]),
                inserted: values([member])
            ) { $0.updateRoot(root) { $0.crew[index] = member } }
        }
    }
}

extension ArrayEdit {
    /// The same edit with each element mapped; nil if one maps to nil.
    func mapElements(_ transform: (Int) -> Int?) -> ArrayEdit? {
        switch self {
        case .append(let element): transform(element).map { .append($0) }
        case .appendTwo(let first, let second):
            transform(first).flatMap { first in transform(second).map { .appendTwo(first, $0) } }
        case .insert(let element, let index): transform(element).map { .insert($0, at: index) }
        case .replace(let index, let element): transform(element).map { .replace(at: index, with: $0) }
        case .remove, .removeSeveral, .removeAll: self
        }
    }
}
