import Foundation
import KVOMediator

/// Where a member is, for the record of its change: its indexes in the crew (nil in the squad, a set),
/// and how many times the collection holds it.
struct ModelElementPlace {
    var indexes: IndexSet?
    var count: Int
}

/// Element-wise observation (`observe(each: \.crew, keyPath: \.value)`, and of the set `\.squad`): a
/// change of a member's `value` is a `.setting` at the member's indexes in the crew now, one old and one
/// new value for each (in the squad: no indexes, one value); a mutation through the collection's proxy
/// keeps its kind and indexes, with the values of the members that leave (old) and join (new); a set of
/// the whole collection is a `.setting` of every old and new value. `.distinct` applies to members'
/// changes only: a change of the collection changes its members, and is always delivered. The squad's
/// values are stated sorted, as the library's are compared (a set has no order).
extension ReferenceModel {
    /// Where the member whose `value` is `slot` is, for an element-wise registration that `slot`'s change
    /// reaches; nil for any other registration or slot.
    func elementPlace(of registration: ModelRegistration, changing slot: ModelSlot) -> ModelElementPlace? {
        guard registration.key.isEach, slot.field == .value else { return nil }
        if registration.key == .eachSquadValue {
            return ModelElementPlace(indexes: nil, count: root(registration.object).squad.contains(slot.object) ? 1 : 0)
        }
        let crew = root(registration.object).crew
        let indexes = IndexSet(crew.indices.filter { crew[$0] == slot.object })
        return ModelElementPlace(indexes: indexes, count: indexes.count)
    }

    /// What a change of `slot` reads for `registration`: the changed member's `value`, for an
    /// element-wise registration reached by a member; the registration's key's value otherwise.
    func reading(_ registration: ModelRegistration, changing slot: ModelSlot) -> ModelValue {
        if elementPlace(of: registration, changing: slot) != nil { return .int(linkB(slot.object).value) }
        return value(of: registration.key, on: registration.object)
    }

    /// A value as a record carries it: a member's value once for each time its collection holds it
    /// (`place`), or as it is.
    static func recorded(_ value: ModelValue, at place: ModelElementPlace?) -> ModelValue {
        guard let place, case .int(let member) = value else { return value }
        return .list(Array(repeating: member, count: place.count))
    }

    /// `roots[root].squad = members`: a set of the whole set.
    mutating func assignSquad(of root: Int, _ members: Set<Int>) {
        change(ModelSlot(object: root, field: .squad)) { $0.updateRoot(root) { $0.squad = members } }
    }

    /// A mutation of a root's squad through `mutableSetValue(for: \.squad)`; the edit's elements are
    /// `linkBs` slots (nothing happens if one is empty).
    mutating func editSquad(of root: Int, _ edit: SetEdit) {
        guard let edit = edit.mapElements({ linkBSlots[$0] }) else { return }
        let slot = ModelSlot(object: root, field: .squad)
        let (mutation, objects) = edit.mutation(of: set(slot))
        mutateSet(slot, mutation, objects)
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

extension SetEdit {
    /// The set mutation this edit is, applied to a set holding `current`, with its objects.
    func mutation(of current: Set<Int>) -> (KVOSetMutation, Set<Int>) {
        switch self {
        case .insert(let element): (.union, [element])
        case .formUnion(let elements): (.union, Set(elements))
        case .remove(let element): (.minus, [element])
        case .subtract(let elements): (.minus, Set(elements))
        case .formIntersection(let elements): (.intersect, Set(elements))
        case .removeAll: (.minus, current)
        case .replaceAll(let elements): (.set, Set(elements))
        }
    }

    /// The same edit with each element mapped; nil if one maps to nil.
    func mapElements(_ transform: (Int) -> Int?) -> SetEdit? {
        func all(_ elements: [Int]) -> [Int]? {
            let mapped = elements.compactMap(transform)
            return mapped.count == elements.count ? mapped : nil
        }
        switch self {
        case .insert(let element): return transform(element).map { .insert($0) }
        case .remove(let element): return transform(element).map { .remove($0) }
        case .formUnion(let elements): return all(elements).map { .formUnion($0) }
        case .subtract(let elements): return all(elements).map { .subtract($0) }
        case .formIntersection(let elements): return all(elements).map { .formIntersection($0) }
        case .removeAll: return self
        case .replaceAll(let elements): return all(elements).map { .replaceAll($0) }
        }
    }
}
