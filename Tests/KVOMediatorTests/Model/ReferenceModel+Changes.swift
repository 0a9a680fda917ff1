import Foundation
import KVOMediator

/// Cocoa's records for announced changes: for each registration that reads the changed property, a
/// prior record (with `.prior`) before the change and a change record after it, old and new values
/// only when asked for; collection mutations with their kind and indexes to registrations of the
/// collection itself. With `.distinct` (never with `.prior` here), no change record when the value read
/// after the change is the one read before it.
extension ReferenceModel {
    /// The registrations reading `slot`, in the order they were made.
    func registrations(reading slot: ModelSlot) -> [ModelRegistration] {
        orderedRegistrations.filter { dependencies(of: $0).contains(slot) }
    }

    /// An announced change of `slot` (a set, or a will/did pair around `mutation`). `comparesValues` false:
    /// a change whose old value cannot be read (a weak referent's death), which `.distinct` delivers.
    /// (An element-wise registration reached by a member's change records it at the member's indexes:
    /// `ReferenceModel+Elements`.)
    mutating func change(_ slot: ModelSlot, comparesValues: Bool = true, _ mutation: (inout ReferenceModel) -> Void) {
        let affected = registrations(reading: slot)
        if transaction != nil {
            for registration in affected { deferChange(of: registration, changing: slot) }
            return mutation(&self)
        }
        var before: [Int: ModelValue] = [:]
        var places: [Int: ModelElementPlace] = [:]
        for registration in affected {
            let old = reading(registration, changing: slot)
            let place = elementPlace(of: registration, changing: slot)
            before[registration.id] = old
            places[registration.id] = place
            if registration.options.contains(.prior) {
                let recorded = Self.recorded(old, at: place)
                deliver(
                    registration.id,
                    ModelRecord(
                        old: registration.options.contains(.old) ? recorded : nil,
                        indexes: place?.indexes,
                        isPrior: true
                    ),
                    member: place.map { _ in slot.object }
                )
            }
        }
        mutation(&self)
        for registration in affected {
            let options = registration.options
            let new = reading(registration, changing: slot)
            let place = places[registration.id]
            // (`.distinct` of an element-wise registration: of its members' values, not of its collection.)
            let isMembership = registration.key.isEach && place == nil
            if comparesValues, options.contains(.distinct), !isMembership, before[registration.id] == new { continue }
            deliver(
                registration.id,
                ModelRecord(
                    old: options.contains(.old) ? before[registration.id].map { Self.recorded($0, at: place) } : nil,
                    new: options.contains(.new) ? Self.recorded(new, at: place) : nil,
                    indexes: place?.indexes
                ),
                member: place.map { _ in slot.object }
            )
        }
    }

    /// A collection mutation through a proxy: its kind and indexes (arrays), the removed and the
    /// inserted elements, to registrations of the collection; a setting to the others.
    mutating func mutateCollection(
        _ slot: ModelSlot,
        kind: KVOChangeKind,
        indexes: IndexSet?,
        removed: ModelValue?,
        inserted: ModelValue?,
        _ mutation: (inout ReferenceModel) -> Void
    ) {
        let affected = registrations(reading: slot)
        if transaction != nil {
            for registration in affected {
                deferChange(of: registration, changing: slot)
                if registration.getsCollectionKinds {
                    deferCollectionChange(
                        of: registration,
                        kind: kind,
                        indexes: indexes,
                        removed: removed,
                        inserted: inserted
                    )
                }
            }
            return mutation(&self)
        }
        var before: [Int: ModelValue] = [:]
        for registration in affected {
            let wantsOld = registration.options.contains(.old)
            if registration.getsCollectionKinds {
                if registration.options.contains(.prior) {
                    let record = ModelRecord(kind: kind, old: wantsOld ? removed : nil, indexes: indexes, isPrior: true)
                    deliver(registration.id, record)
                }
                continue
            }
            let old = value(of: registration.key, on: registration.object)
            before[registration.id] = old
            if registration.options.contains(.prior) {
                deliver(registration.id, ModelRecord(old: wantsOld ? old : nil, isPrior: true))
            }
        }
        mutation(&self)
        for registration in affected {
            let options = registration.options
            if registration.getsCollectionKinds {
                let record = ModelRecord(
                    kind: kind,
                    old: options.contains(.old) ? removed : nil,
                    new: options.contains(.new) ? inserted : nil,
                    indexes: indexes
                )
                deliver(registration.id, record)
            } else {
                let new = value(of: registration.key, on: registration.object)
                if options.contains(.distinct), before[registration.id] == new { continue }
                deliver(
                    registration.id,
                    ModelRecord(
                        old: options.contains(.old) ? before[registration.id] : nil,
                        new: options.contains(.new) ? new : nil
                    )
                )
            }
        }
    }

    /// The array an array slot holds: a root's `songs`, a last link's `items`.
    func array(_ slot: ModelSlot) -> [Int] {
        switch slot.field {
        case .songs: root(slot.object).songs
        case .items: linkB(slot.object).items
        case .queue: root(slot.object).queue
        default: preconditionFailure("\(slot.field) is not an array")
        }
    }

    mutating func updateArray(_ slot: ModelSlot, _ change: (inout [Int]) -> Void) {
        switch slot.field {
        case .songs: updateRoot(slot.object) { change(&$0.songs) }
        case .items: updateLinkB(slot.object) { change(&$0.items) }
        case .queue: updateRoot(slot.object) { change(&$0.queue) }
        default: preconditionFailure("\(slot.field) is not an array")
        }
    }

    /// A mutation through `mutableArrayValue(for:)` of the array in `slot`.
    mutating func editArray(_ slot: ModelSlot, _ edit: ArrayEdit) {
        let elements = array(slot)
        func insertion(_ inserted: [Int], at indexes: IndexSet) {
            mutateCollection(slot, kind: .insertion, indexes: indexes, removed: nil, inserted: .list(inserted)) {
                $0.updateArray(slot) { array in
                    for (element, index) in zip(inserted, indexes) { array.insert(element, at: index) }
                }
            }
        }
        func removal(at indexes: IndexSet) {
            guard !indexes.isEmpty else { return }  // nothing to announce
            let removed = indexes.map { elements[$0] }
            mutateCollection(slot, kind: .removal, indexes: indexes, removed: .list(removed), inserted: nil) {
                $0.updateArray(slot) { array in
                    for index in indexes.reversed() { array.remove(at: index) }
                }
            }
        }
        switch edit {
        case .append(let element): insertion([element], at: IndexSet(integer: elements.count))
        case .appendTwo(let first, let second):
            insertion([first, second], at: IndexSet(integersIn: elements.count..<elements.count + 2))
        case .insert(let element, let index): insertion([element], at: IndexSet(integer: index))
        case .remove(let index): removal(at: IndexSet(integer: index))
        case .removeSeveral(let indexes): removal(at: indexes)
        case .removeAll: removal(at: IndexSet(integersIn: 0..<elements.count))
        case .replace(let index, let element):
            let indexes = IndexSet(integer: index)
            mutateCollection(
                slot,
                kind: .replacement,
                indexes: indexes,
                removed: .list([elements[index]]),
                inserted: .list([element])
            ) { $0.updateArray(slot) { $0[index] = element } }
        }
    }

    /// A mutation through `mutableSetValue(for:)` of a root's `tags`.
    mutating func editTags(of root: Int, _ edit: SetEdit) {
        let slot = ModelSlot(object: root, field: .tags)
        let (mutation, objects) = edit.mutation(of: set(slot))
        mutateSet(slot, mutation, objects)
    }

    /// The set a set slot holds: a root's `tags`, `marks`, or `squad` (of last links, by number).
    func set(_ slot: ModelSlot) -> Set<Int> {
        switch slot.field {
        case .tags: root(slot.object).tags
        case .marks: root(slot.object).marks
        case .squad: root(slot.object).squad
        default: preconditionFailure("\(slot.field) is not a set")
        }
    }

    /// A set mutation (through the proxy, or announced by hand): Cocoa's kind with exactly the members
    /// that change (union: an insertion; minus, intersect: a removal; set: a replacement of the members
    /// that go by those that arrive), and nothing at all when nothing changes. The records carry the
    /// members (of the squad: their values, sorted).
    mutating func mutateSet(_ slot: ModelSlot, _ mutation: KVOSetMutation, _ objects: Set<Int>) {
        let set = set(slot)
        let removed: Set<Int>
        let added: Set<Int>
        let kind: KVOChangeKind
        switch mutation {
        case .union: (removed, added, kind) = ([], objects.subtracting(set), .insertion)
        case .minus: (removed, added, kind) = (set.intersection(objects), [], .removal)
        case .intersect: (removed, added, kind) = (set.subtracting(objects), [], .removal)
        case .set: (removed, added, kind) = (set.subtracting(objects), objects.subtracting(set), .replacement)
        }
        guard !removed.isEmpty || !added.isEmpty else { return }
        let after = set.subtracting(removed).union(added)
        func recorded(_ members: Set<Int>) -> ModelValue {
            slot.field == .squad ? .list(members.map { linkB($0).value }.sorted()) : .bag(members)
        }
        mutateCollection(
            slot,
            kind: kind,
            indexes: nil,
            removed: kind == .insertion ? nil : recorded(removed),
            inserted: kind == .removal ? nil : recorded(added)
        ) { model in
            model.updateRoot(slot.object) { state in
                switch slot.field {
                case .tags: state.tags = after
                case .marks: state.marks = after
                default: state.squad = after
                }
            }
        }
    }

    /// Applies a write operation; false if `operation` is not one.
    mutating func applyWrite(_ operation: ModelOperation) -> Bool {
        switch operation {
        case .transaction(let writes):
            transaction = ModelTransaction()
            for write in writes { _ = applyWrite(write) }
            endTransaction()
        case .setX(let slot, let value): setRoot(slot, .x) { $0.x = value }
        case .setY(let slot, let value): setRoot(slot, .y) { $0.y = value }
        case .setFlag(let slot, let value): setRoot(slot, .flag) { $0.flag = value }
        case .setLevel(let slot, let value): setRoot(slot, .level) { $0.level = value }
        case .linkA(let slot, let target):
            let a = target.flatMap { linkASlots[$0] }
            setRoot(slot, .a) { $0.a = a }
        case .linkB(let slot, let target):
            guard let a = linkASlots[slot] else { break }
            let b = target.flatMap { linkBSlots[$0] }
            change(ModelSlot(object: a, field: .b)) { $0.objects[a] = .linkA(b: b) }
        case .linkBThroughRoot(let slot, let target):
            guard let root = rootSlots[slot], let a = self.root(root).a else { break }
            let b = target.flatMap { linkBSlots[$0] }
            change(ModelSlot(object: a, field: .b)) { $0.objects[a] = .linkA(b: b) }
        case .linkPeer(let slot, let target):
            let b = target.flatMap { linkBSlots[$0] }
            setRoot(slot, .peer) { $0.peer = b }
        case .setValue(let slot, let value): setLinkB(linkBSlots[slot], .value) { $0.value = value }
        case .setChainValue(let slot, let value):
            setLinkB(rootSlots[slot].flatMap(chainEnd), .value) { $0.value = value }
        case .setLabel(let slot, let label): setLinkB(linkBSlots[slot], .label) { $0.label = label }
        case .assignItems(let slot, let items): setLinkB(linkBSlots[slot], .items) { $0.items = items }
        case .editItems(let slot, let edit):
            if let b = linkBSlots[slot] { editArray(ModelSlot(object: b, field: .items), edit) }
        case .editChainItems(let slot, let edit):
            if let b = rootSlots[slot].flatMap(chainEnd) { editArray(ModelSlot(object: b, field: .items), edit) }
        case .assignSongs(let slot, let songs): setRoot(slot, .songs) { $0.songs = songs }
        case .editSongs(let slot, let edit):
            if let root = rootSlots[slot] { editArray(ModelSlot(object: root, field: .songs), edit) }
        case .assignTags(let slot, let tags): setRoot(slot, .tags) { $0.tags = tags }
        case .editTags(let slot, let edit): if let root = rootSlots[slot] { editTags(of: root, edit) }
        case .announceCount(let slot, let values):
            setRoot(slot, .count) { state in values.last.map { state.count = $0 } }
        case .setCountSilently(let slot, let value):
            if let root = rootSlots[slot] { updateRoot(root) { $0.count = value } }
        case .unmatchedDidChangeCount: break
        case .setByString(let target, let key, let values): applySetByString(target, key, values)
        case .editQueue(let slot, let edit):
            if let root = rootSlots[slot] { editArray(ModelSlot(object: root, field: .queue), edit) }
        case .assignQueue(let slot, let queue): setRoot(slot, .queue) { $0.queue = queue }
        case .mutateMarks(let slot, let mutation, let objects):
            if let root = rootSlots[slot] { mutateSet(ModelSlot(object: root, field: .marks), mutation, Set(objects)) }
        case .assignCrew(let slot, let members):
            let objects = members.compactMap { linkBSlots[$0] }
            if let root = rootSlots[slot], objects.count == members.count { assignCrew(of: root, objects) }
        case .editCrew(let slot, let edit): if let root = rootSlots[slot] { editCrew(of: root, edit) }
        case .assignSquad(let slot, let members):
            let objects = members.compactMap { linkBSlots[$0] }
            if let root = rootSlots[slot], objects.count == members.count { assignSquad(of: root, Set(objects)) }
        case .editSquad(let slot, let edit): if let root = rootSlots[slot] { editSquad(of: root, edit) }
        default: return false
        }
        return true
    }

    /// An announced change of one property of the root in `slot`, if there is one.
    private mutating func setRoot(_ slot: Int, _ field: ModelField, _ set: (inout RootState) -> Void) {
        guard let root = rootSlots[slot] else { return }
        change(ModelSlot(object: root, field: field)) { $0.updateRoot(root, set) }
    }

    /// An announced change of one property of a last link, if there is one.
    private mutating func setLinkB(_ b: Int?, _ field: ModelField, _ set: (inout LinkBState) -> Void) {
        guard let b else { return }
        change(ModelSlot(object: b, field: field)) { $0.updateLinkB(b, set) }
    }
}
