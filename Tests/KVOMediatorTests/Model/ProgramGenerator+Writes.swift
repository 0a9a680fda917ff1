import Foundation
import KVOMediator

/// Writes: sets (with numbered values), links made, replaced and broken, collection mutations
/// through proxies (on roots, on last links, and through a root's chain), and manual announcements (of
/// values, of an array's indexes, of set mutations).
extension ProgramGenerator {
    mutating func write() -> ModelOperation? {
        if random.chance(6), let transaction = transactionWrite() { return transaction }
        return plainWrite()
    }

    /// A transaction of one to four writes, each valid where it stands: generated against a copy of the
    /// model that each is applied to, then the model is put back (the transaction is applied as one).
    private mutating func transactionWrite() -> ModelOperation? {
        let saved = model
        defer { model = saved }
        var writes: [ModelOperation] = []
        for _ in 0...random.below(4) {
            guard let write = plainWrite(), write.isTransactable else { continue }
            writes.append(write)
            _ = model.apply(write)
        }
        return writes.isEmpty ? nil : .transaction(writes)
    }

    private mutating func plainWrite() -> ModelOperation? {
        if random.chance(8), let write = setByStringWrite() { return write }
        guard let root = someRoot() else { return linkBWrite() }  // only last links may exist
        if random.chance(25), let write = linkBWrite() { return write }
        if random.chance(7), let write = random.chance(50) ? crewWrite(root: root) : squadWrite(root: root) {
            return write
        }
        let state = model.root(model.rootSlots[root]!)
        // A weak link made or replaced (last links are released by lifetimes: `dropLinkB`, a new one in its slot).
        if random.chance(5) { return .linkPeer(root: root, to: someLink(model.linkBSlots)) }
        switch random.below(52) {
        case 0..<4: return .setX(root: root, freshValue())
        case 4..<6: return .setY(root: root, freshValue())
        case 6..<9: return .setFlag(root: root, random.chance(80) ? !state.flag : state.flag)
        case 9..<12: return .setLevel(root: root, freshValue())
        case 12..<18: return .linkA(root: root, to: someLink(model.linkASlots))
        case 18..<20:
            guard let a = random.element(of: filled(model.linkASlots)) else { return nil }
            return .linkB(a: a, to: someLink(model.linkBSlots))
        case 20..<22: return .linkBThroughRoot(root: root, to: someLink(model.linkBSlots))
        case 22..<28:
            // Through the chain, so that the last link's array changes under the chain's registrations.
            guard let b = model.chainEnd(of: model.rootSlots[root]!) else { return nil }
            return .editChainItems(root: root, arrayEdit(count: model.linkB(b).items.count))
        case 28..<31: return .setChainValue(root: root, freshValue())
        case 31: return .assignSongs(root: root, (0..<random.below(4)).map { _ in freshValue() })
        case 32..<37: return .editSongs(root: root, arrayEdit(count: state.songs.count))
        case 37: return .assignTags(root: root, Set((0..<random.below(4)).map { _ in random.below(6) }))
        case 38..<42: return .editTags(root: root, tagsEdit())
        case 42..<44: return .announceCount(root: root, (0...random.below(2)).map { _ in freshValue() })
        case 44: return .setCountSilently(root: root, freshValue())
        case 45: return .unmatchedDidChangeCount(root: root)
        case 46..<49: return .editQueue(root: root, arrayEdit(count: state.queue.count))
        case 49: return .assignQueue(root: root, (0..<random.below(4)).map { _ in freshValue() })
        default:
            let mutation = random.element(of: [KVOSetMutation.union, .minus, .intersect, .set])!
            return .mutateMarks(root: root, mutation, (0..<random.below(3)).map { _ in random.below(6) })
        }
    }

    /// A write of a last link: its value, its label (announced by hand), its items (assigned, or
    /// mutated through the proxy).
    private mutating func linkBWrite() -> ModelOperation? {
        guard let slot = random.element(of: filled(model.linkBSlots)) else { return nil }
        switch random.below(10) {
        case 0..<3: return .setValue(b: slot, freshValue())
        case 3, 4: return .setLabel(b: slot, freshValue())
        case 5: return .assignItems(b: slot, (0..<random.below(4)).map { _ in freshValue() })
        default: return .editItems(b: slot, arrayEdit(count: model.linkB(model.linkBSlots[slot]!).items.count))
        }
    }

    /// A write of a root's crew (the members are `linkBs` slots, so a member may be held twice): assigned,
    /// or mutated through the proxy.
    private mutating func crewWrite(root: Int) -> ModelOperation? {
        let count = model.root(model.rootSlots[root]!).crew.count
        let members = filled(model.linkBSlots)
        if random.chance(15) {
            return .assignCrew(
                root: root,
                members: (0..<random.below(4)).compactMap { _ in random.element(of: members) }
            )
        }
        if count == 0 || (count < 5 && random.chance(50)) {
            guard let member = random.element(of: members), let other = random.element(of: members) else { return nil }
            switch random.below(3) {
            case 0: return .editCrew(root: root, .append(member))
            case 1: return .editCrew(root: root, .appendTwo(member, other))
            default: return .editCrew(root: root, .insert(member, at: random.below(count + 1)))
            }
        }
        switch random.below(5) {
        case 0, 1: return .editCrew(root: root, .remove(at: random.below(count)))
        case 2:
            guard let member = random.element(of: members) else { return nil }
            return .editCrew(root: root, .replace(at: random.below(count), with: member))
        case 3: return .editCrew(root: root, .removeSeveral(IndexSet([random.below(count), random.below(count)])))
        default: return .editCrew(root: root, .removeAll)
        }
    }

    /// A write of a root's squad (the members are `linkBs` slots): assigned, or mutated through the proxy.
    private mutating func squadWrite(root: Int) -> ModelOperation? {
        let members = filled(model.linkBSlots)
        let some = (0..<1 + random.below(2)).compactMap { _ in random.element(of: members) }
        if random.chance(15) { return .assignSquad(root: root, members: some) }
        guard let member = random.element(of: members) else {
            return random.chance(50) ? .editSquad(root: root, .removeAll) : nil
        }
        switch random.below(7) {
        case 0, 1: return .editSquad(root: root, .insert(member))
        case 2: return .editSquad(root: root, .remove(member))
        case 3: return .editSquad(root: root, .formUnion(some))
        case 4: return .editSquad(root: root, random.chance(50) ? .subtract(some) : .formIntersection(some))
        case 5: return .editSquad(root: root, .removeAll)
        default: return .editSquad(root: root, .replaceAll(some))
        }
    }

    /// An array mutation valid for an array of `count` elements (kept short).
    private mutating func arrayEdit(count: Int) -> ArrayEdit {
        if count == 0 || (count < 6 && random.chance(45)) {
            switch random.below(3) {
            case 0: return .append(freshValue())
            case 1: return .appendTwo(freshValue(), freshValue())
            default: return .insert(freshValue(), at: random.below(count + 1))
            }
        }
        switch random.below(5) {
        case 0, 1: return .remove(at: random.below(count))
        case 2: return .replace(at: random.below(count), with: freshValue())
        case 3:
            let first = random.below(count)
            let second = random.below(count)
            return .removeSeveral(IndexSet([first, second]))
        default: return random.chance(50) ? .removeAll : .remove(at: count - 1)
        }
    }

    /// A set mutation over small numbers, so that insertions and removals meet existing elements.
    private mutating func tagsEdit() -> SetEdit {
        let some = (0..<1 + random.below(2)).map { _ in random.below(6) }
        switch random.below(7) {
        case 0, 1: return .insert(random.below(6))
        case 2: return .remove(random.below(6))
        case 3: return .formUnion(some)
        case 4: return random.chance(50) ? .subtract(some) : .formIntersection(some)
        case 5: return random.chance(50) ? .removeAll : .replaceAll(some)
        default: return .replaceAll((0..<random.below(4)).map { _ in random.below(6) })
        }
    }
}
