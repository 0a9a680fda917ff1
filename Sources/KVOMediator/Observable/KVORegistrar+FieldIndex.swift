/// A registrar's index of its `@Observed` properties' entries, for objects with many observed
/// properties (see `State.fieldIndex`). Called with the registrar's lock held.
extension KVORegistrar.State {
    @inline(__always)
    static func fieldHome(_ offset: Int, mask: Int) -> Int {
        tablePlace(of: UInt(bitPattern: offset), mask: mask)
    }

    /// The entry of the `@Observed` property at `offset`, through `fieldIndex`.
    @inline(__always)
    func indexedEntry(forField offset: Int) -> Int? {
        let mask = fieldIndex.count &- 1
        var place = Self.fieldHome(offset, mask: mask)
        while true {
            let position = Int(fieldIndex[place])
            if position == 0 { return nil }
            if case .field(offset) = slots[position &- 1].slot { return position }
            place = (place &+ 1) & mask
        }
    }

    /// Makes `fieldIndex` anew for the entries in `slots` (or empties it, for few).
    mutating func rebuildFieldIndex() {
        guard slots.count >= Self.fieldIndexThreshold else {
            if !fieldIndex.isEmpty { fieldIndex = [] }
            return
        }
        var capacity = 16
        while capacity < slots.count &* 2 { capacity &*= 2 }
        fieldIndex = Array(repeating: 0, count: capacity)
        for (position, entry) in slots.enumerated() { indexField(of: entry, at: position) }
    }

    /// Adds the entry at `position` of `slots` to `fieldIndex`, if it is an `@Observed` property's.
    mutating func indexField(of entry: Entry, at position: Int) {
        guard case .field(let offset) = entry.slot else { return }
        let mask = fieldIndex.count &- 1
        var place = Self.fieldHome(offset, mask: mask)
        while fieldIndex[place] != 0 { place = (place &+ 1) & mask }
        fieldIndex[place] = Int32(truncatingIfNeeded: position &+ 1)
    }

    /// Removes the entry at `position` of `slots` in O(1): the last entry takes its place.
    mutating func removeSlot(at position: Int) {
        let last = slots.count - 1
        if !fieldIndex.isEmpty {
            unindexField(at: position)
            if position != last { repointField(from: last, to: position) }
        }
        if position != last { slots.swapAt(position, last) }
        slots.removeLast()
        if !fieldIndex.isEmpty, slots.count < Self.fieldIndexThreshold / 2 { fieldIndex = [] }
    }

    /// The place in `fieldIndex` that holds the entry at `position` of `slots`, if it is indexed.
    func fieldPlace(ofEntryAt position: Int) -> Int? {
        guard case .field(let offset) = slots[position].slot else { return nil }
        let mask = fieldIndex.count &- 1
        var place = Self.fieldHome(offset, mask: mask)
        while fieldIndex[place] != 0 {
            if Int(fieldIndex[place]) == position &+ 1 { return place }
            place = (place &+ 1) & mask
        }
        return nil
    }

    /// Takes the entry at `position` out of `fieldIndex`, moving back each later place of its run
    /// that a probe would no longer reach (no tombstones).
    mutating func unindexField(at position: Int) {
        guard var hole = fieldPlace(ofEntryAt: position) else { return }
        let mask = fieldIndex.count &- 1
        var next = hole
        while true {
            next = (next &+ 1) & mask
            let held = Int(fieldIndex[next])
            if held == 0 { break }
            guard case .field(let offset) = slots[held &- 1].slot else { continue }
            let home = Self.fieldHome(offset, mask: mask)
            if !mayFill(hole, from: next, home: home) { continue }
            fieldIndex[hole] = fieldIndex[next]
            hole = next
        }
        fieldIndex[hole] = 0
    }

    /// Points the place of the entry at `old` of `slots` at `new`, where it is about to move.
    mutating func repointField(from old: Int, to new: Int) {
        if let place = fieldPlace(ofEntryAt: old) { fieldIndex[place] = Int32(truncatingIfNeeded: new &+ 1) }
    }

    /// Records an entry just appended to `slots`.
    mutating func didAppendSlot() {
        if fieldIndex.isEmpty || slots.count &* 2 > fieldIndex.count {
            rebuildFieldIndex()
        } else {
            indexField(of: slots[slots.count &- 1], at: slots.count &- 1)
        }
    }
}
