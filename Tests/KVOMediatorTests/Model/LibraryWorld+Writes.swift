import Foundation
import KVOMediator

/// The library side of writes: sets through `@Observed`, custom storage and chains, proxies, and
/// manual announcements.
extension LibraryWorld {
    /// Performs a write operation; false if `operation` is not one.
    func performWrite(_ operation: ModelOperation) -> Bool {
        switch operation {
        case .transaction(let writes): withKVOTransaction { for write in writes { _ = performWrite(write) } }
        case .setX(let slot, let value): onRoot(slot) { $0.x = value }
        case .setY(let slot, let value): onRoot(slot) { $0.y = value }
        case .setFlag(let slot, let value): onRoot(slot) { $0.flag = value }
        case .setLevel(let slot, let value): onRoot(slot) { $0.level = value }
        case .linkA(let slot, let target):
            let a = target.flatMap { linkAs[$0] }
            onRoot(slot) { $0.a = a }
        case .linkB(let slot, let target):
            let b = target.flatMap { linkBs[$0] }
            onLinkA(slot) { $0.b = b }
        case .linkBThroughRoot(let slot, let target):
            let b = target.flatMap { linkBs[$0] }
            onRoot(slot) { $0.a?.b = b }
        case .linkPeer(let slot, let target):
            let b = target.flatMap { linkBs[$0] }
            onRoot(slot) { $0.peer = b }
        case .setValue(let slot, let value): onLinkB(slot) { $0.value = value }
        case .setChainValue(let slot, let value): onRoot(slot) { $0.a?.b?.value = value }
        case .setLabel(let slot, let label): onLinkB(slot) { $0.label = label }
        case .assignItems(let slot, let items): onLinkB(slot) { $0.items = items }
        case .editItems(let slot, let edit): onLinkB(slot) { edit.apply(to: $0.mutableArrayValue(for: \.items)) }
        case .editChainItems(let slot, let edit):
            onRoot(slot) { root in
                if let b = root.a?.b { edit.apply(to: b.mutableArrayValue(for: \.items)) }
            }
        case .assignSongs(let slot, let songs): onRoot(slot) { $0.songs = songs }
        case .editSongs(let slot, let edit): onRoot(slot) { edit.apply(to: $0.mutableArrayValue(for: \.songs)) }
        case .assignTags(let slot, let tags): onRoot(slot) { $0.tags = tags }
        case .editTags(let slot, let edit): onRoot(slot) { edit.apply(to: $0.mutableSetValue(for: \.tags)) }
        case .announceCount(let slot, let values):
            guard let root = roots[slot] else { break }
            if values.count == 1 {
                root.withChange(of: \.count) { root.count = values[0] }
            } else {
                root.willChangeValue(for: \.count)
                for value in values { root.count = value }
                root.didChangeValue(for: \.count)
            }
        case .setCountSilently(let slot, let value): onRoot(slot) { $0.count = value }
        case .unmatchedDidChangeCount(let slot): onRoot(slot) { $0.didChangeValue(for: \.count) }
        case .setByString(let target, let key, let values): setByString(target, key, values)
        case .editQueue(let slot, let edit): onRoot(slot) { edit.announce(on: $0) }
        case .assignQueue(let slot, let queue): onRoot(slot) { $0.queue = queue }
        case .mutateMarks(let slot, let mutation, let objects):
            onRoot(slot) { root in
                let objects = Set(objects)
                root.withChange(mutation, using: objects, of: \.marks) {
                    switch mutation {
                    case .union: root.marks.formUnion(objects)
                    case .minus: root.marks.subtract(objects)
                    case .intersect: root.marks.formIntersection(objects)
                    case .set: root.marks = objects
                    }
                }
            }
        case .assignCrew(let slot, let members):
            let objects = members.compactMap { linkBs[$0] }
            if objects.count == members.count { onRoot(slot) { $0.crew = objects } }
        case .editCrew(let slot, let edit):
            let members = linkBs
            guard let edit = edit.mapElements({ members[$0] == nil ? nil : $0 }) else { break }
            onRoot(slot) { edit.apply(to: $0.mutableArrayValue(for: \.crew)) { members[$0]! } }
        case .assignSquad(let slot, let members):
            let objects = members.compactMap { linkBs[$0] }
            if objects.count == members.count { onRoot(slot) { $0.squad = Set(objects) } }
        case .editSquad(let slot, let edit):
            let members = linkBs
            guard let edit = edit.mapElements({ members[$0] == nil ? nil : $0 }) else { break }
            onRoot(slot) { edit.apply(to: $0.mutableSetValue(for: \.squad)) { members[$0]! } }
        default: return false
        }
        return true
    }

    private func onRoot(_ slot: Int, _ body: (ModelRoot) -> Void) {
        if let root = roots[slot] { body(root) }
    }

    private func onLinkA(_ slot: Int, _ body: (ModelLinkA) -> Void) {
        if let a = linkAs[slot] { body(a) }
    }

    private func onLinkB(_ slot: Int, _ body: (ModelLinkB) -> Void) {
        if let b = linkBs[slot] { body(b) }
    }
}

extension ArrayEdit {
    func apply(to array: KVOMutableArray<some KeyValueObservable, Int>) {
        switch self {
        case .append(let element): array.append(element)
        case .appendTwo(let first, let second): array.append(contentsOf: [first, second])
        case .insert(let element, let index): array.insert(element, at: index)
        case .remove(let index): array.remove(at: index)
        case .removeSeveral(let indexes): array.remove(at: indexes)
        case .replace(let index, let element):
            // Both spellings of a replacement.
            if element.isMultiple(of: 2) { array[index] = element } else { array.replace(at: index, with: element) }
        case .removeAll: array.removeAll()
        }
    }

    /// The same edit of an array of objects, whose elements the edit names by number (`member` finds them).
    func apply<Element>(to array: KVOMutableArray<some KeyValueObservable, Element>, member: (Int) -> Element) {
        switch self {
        case .append(let element): array.append(member(element))
        case .appendTwo(let first, let second): array.append(contentsOf: [member(first), member(second)])
        case .insert(let element, let index): array.insert(member(element), at: index)
        case .remove(let index): array.remove(at: index)
        case .removeSeveral(let indexes): array.remove(at: indexes)
        case .replace(let index, let element):
            if element.isMultiple(of: 2) {
                array[index] = member(element)
            } else {
                array.replace(at: index, with: member(element))
            }
        case .removeAll: array.removeAll()
        }
    }

    /// The same edit of a root's `queue`, custom storage changed in place and announced with its kind and
    /// indexes: by `withChange(_:at:of:_:)`, or by `willChange` and `didChange` written out.
    func announce(on root: ModelRoot) {
        let count = root.queue.count
        func change(_ kind: KVOChangeKind, _ indexes: IndexSet, _ body: (inout [Int]) -> Void) {
            if indexes.count.isMultiple(of: 2) {
                root.willChange(kind, at: indexes, for: \.queue)
                root.editQueueSilently(body)
                root.didChange(kind, at: indexes, for: \.queue)
            } else {
                root.withChange(kind, at: indexes, of: \.queue) { root.editQueueSilently(body) }
            }
        }
        switch self {
        case .append(let element): change(.insertion, IndexSet(integer: count)) { $0.append(element) }
        case .appendTwo(let first, let second):
            change(.insertion, IndexSet(integersIn: count..<count + 2)) { $0 += [first, second] }
        case .insert(let element, let index):
            change(.insertion, IndexSet(integer: index)) { $0.insert(element, at: index) }
        case .remove(let index): change(.removal, IndexSet(integer: index)) { $0.remove(at: index) }
        case .removeSeveral(let indexes):
            change(.removal, indexes) { array in
                for index in indexes.reversed() { array.remove(at: index) }
            }
        case .replace(let index, let element): change(.replacement, IndexSet(integer: index)) { $0[index] = element }
        case .removeAll: change(.removal, IndexSet(integersIn: 0..<count)) { $0.removeAll() }
        }
    }
}

extension SetEdit {
    /// The same edit of a set of objects, whose elements the edit names by number (`member` finds them).
    func apply(to set: KVOMutableSet<ModelRoot, ModelLinkB>, member: (Int) -> ModelLinkB) {
        switch self {
        case .insert(let element): set.insert(member(element))
        case .remove(let element): set.remove(member(element))
        case .formUnion(let elements): set.formUnion(elements.map(member))
        case .subtract(let elements): set.subtract(elements.map(member))
        case .formIntersection(let elements): set.formIntersection(elements.map(member))
        case .removeAll: set.removeAll()
        case .replaceAll(let elements): set.replaceAll(with: elements.map(member))
        }
    }

    func apply(to tags: KVOMutableSet<ModelRoot, Int>) {
        switch self {
        case .insert(let element): tags.insert(element)
        case .remove(let element): tags.remove(element)
        case .formUnion(let elements): tags.formUnion(elements)
        case .subtract(let elements): tags.subtract(elements)
        case .formIntersection(let elements): tags.formIntersection(elements)
        case .removeAll: tags.removeAll()
        case .replaceAll(let elements): tags.replaceAll(with: elements)
        }
    }
}
