import Foundation

/// Writes: sets (with numbered values), links made, replaced and broken, collection mutations
/// through proxies, and manual announcements.
extension ProgramGenerator {
    mutating func write() -> ModelOperation? {
        guard let root = someRoot() else {
            // Only last links may exist: write their value.
            return random.element(of: filled(model.linkBSlots)).map { .setValue(b: $0, freshValue()) }
        }
        let state = model.root(model.rootSlots[root]!)
        switch random.below(40) {
        case 0..<4: return .setX(root: root, freshValue())
        case 4..<6: return .setY(root: root, freshValue())
        case 6..<9: return .setFlag(root: root, random.chance(80) ? !state.flag : state.flag)
        case 9..<12: return .setLevel(root: root, freshValue())
        case 12..<16: return .linkA(root: root, to: someLink(model.linkASlots))
        case 16..<18:
            guard let a = random.element(of: filled(model.linkASlots)) else { return nil }
            return .linkB(a: a, to: someLink(model.linkBSlots))
        case 18..<20: return .linkBThroughRoot(root: root, to: someLink(model.linkBSlots))
        case 20..<22: return random.element(of: filled(model.linkBSlots)).map { .setValue(b: $0, freshValue()) }
        case 22..<25: return .setChainValue(root: root, freshValue())
        case 25: return .assignSongs(root: root, (0..<random.below(4)).map { _ in freshValue() })
        case 26..<31: return .editSongs(root: root, songsEdit(count: state.songs.count))
        case 31: return .assignTags(root: root, Set((0..<random.below(4)).map { _ in random.below(6) }))
        case 32..<36: return .editTags(root: root, tagsEdit())
        case 36..<38: return .announceCount(root: root, (0...random.below(2)).map { _ in freshValue() })
        case 38: return .setCountSilently(root: root, freshValue())
        default: return .unmatchedDidChangeCount(root: root)
        }
    }

    /// An array mutation valid for an array of `count` elements (kept short).
    private mutating func songsEdit(count: Int) -> ArrayEdit {
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
        switch random.below(6) {
        case 0, 1: return .insert(random.below(6))
        case 2: return .remove(random.below(6))
        case 3: return .formUnion(some)
        case 4: return random.chance(50) ? .subtract(some) : .formIntersection(some)
        default: return .removeAll
        }
    }
}
