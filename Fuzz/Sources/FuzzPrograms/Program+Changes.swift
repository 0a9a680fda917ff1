import Foundation
import KVOMediator

extension Program {
    /// Makes a change to a root, first telling the count model which direct key path it announces.
    func change(_ operation: Operation) {
        switch operation {
        case .setValue(let slot, let value):
            guard let root = roots[slot] else { return }
            set(\.value, of: root, to: value, announcing: .value)
        case .setMiddle(let slot, let choice):
            guard let root = roots[slot] else { return }
            // Nil, a new chain, or the middle of the next root (then two roots share it).
            let middle =
                choice == 0 ? nil : choice == 1 ? makeMiddle(leaf: true) : roots[(slot + 1) % roots.count]?.middle
            set(\.middle, of: root, to: middle, announcing: .middle)
        case .setMiddleValue(let slot, let value):
            guard let middle = roots[slot]?.middle else { return }
            expectChange(of: .value, on: middle)
            middle.value = value
        case .setLeaf(let slot, let present):
            guard let middle = roots[slot]?.middle else { return }
            let leaf = present ? makeLeaf() : nil
            expectChange(of: .leaf, on: middle)
            middle.leaf = leaf
        case .setLeafValue(let slot, let value):
            guard let leaf = roots[slot]?.middle?.leaf else { return }
            expectChange(of: .value, on: leaf)
            leaf.value = value
        case .changeArray(let slot, let change, let value, let position):
            guard let root = roots[slot] else { return }
            changeArray(of: root, change, value, position)
        case .changeSet(let slot, let change, let value):
            guard let root = roots[slot] else { return }
            changeSet(of: root, change, value % 8)
        case .announce(let slot, let change, let value):
            guard let root = roots[slot] else { return }
            announce(change, on: root, value)
        default:
            fatalError("not a change: \(operation)")
        }
    }

    /// Sets a property of a root through its setter, which announces the change once.
    func set<Value>(
        _ keyPath: ReferenceWritableKeyPath<Root, Value>,
        of root: Root,
        to value: Value,
        announcing property: ObservedProperty
    ) {
        expectChange(of: property, on: root)
        root[keyPath: keyPath] = value
    }

    /// Every registration that reads `property` of `object` now, and can be called, must be called
    /// `times` more times (twice as many with `.prior`). Called before the change: what a registration
    /// reads is what it subscribed to.
    func expectChange(of property: ObservedProperty, on object: AnyObject, times: Int = 1) {
        for registration in registrations {
            registration.expectChange(of: property, on: object, times: times)
        }
    }

    /// A mutation through the array proxy (one announcement each; removing all of nothing announces
    /// nothing), or an assignment of the whole array.
    private func changeArray(of root: Root, _ change: Operation.ArrayChange, _ value: Int, _ position: Int) {
        let items = root.mutableArrayValue(for: \.items)
        let count = items.count
        let grows = [.append, .insert, .appendContents, .insertContents].contains(change)
        guard !(grows && count >= 16), grows || change == .assign || count > 0 else { return }
        // Some of the elements, chosen by the bits of `position` (possibly none: then nothing is announced).
        let chosen = IndexSet((0..<count).filter { position & (1 << $0) != 0 })
        if chosen.isEmpty, change == .removeIndexes || change == .replaceIndexes { return }
        expectChange(of: .items, on: root)
        switch change {
        case .append: items.append(value)
        case .insert: items.insert(value, at: position % (count + 1))
        case .remove: items.remove(at: position % count)
        case .replace: items[position % count] = value
        case .removeAll: items.removeAll()
        case .removeLast: items.removeLast()
        case .assign: root.items = [value, position]
        case .appendContents: items.append(contentsOf: [value, position])
        case .insertContents: items.insert(contentsOf: [value, value], at: position % (count + 1))
        case .removeFirst: items.removeFirst()
        case .removeIndexes: items.remove(at: chosen)
        case .replaceIndexes: items.replace(at: chosen, with: chosen.map { $0 + value })
        }
    }

    /// A mutation through the set proxy (announced only when it changes the set), or an assignment.
    private func changeSet(of root: Root, _ change: Operation.SetChange, _ value: Int) {
        let tags = root.mutableSetValue(for: \.tags)
        let before = root.tags
        let after: Set<Int>
        switch change {
        case .insert: after = before.union([value])
        case .remove: after = before.subtracting([value])
        case .removeAll: after = []
        case .assign: after = [value]
        case .formUnion: after = before.union([value, (value + 1) % 8])
        case .subtract: after = before.subtracting([value, (value + 3) % 8])
        case .formIntersection: after = before.intersection([value])
        }
        if change == .assign || after != before { expectChange(of: .tags, on: root) }
        switch change {
        case .insert: tags.insert(value)
        case .remove: tags.remove(value)
        case .removeAll: tags.removeAll()
        case .assign: root.tags = [value]
        case .formUnion: tags.formUnion([value, (value + 1) % 8])
        case .subtract: tags.subtract([value, (value + 3) % 8])
        case .formIntersection: tags.formIntersection([value])
        }
    }

    /// Manual notification: each will/did pair announces once, nested pairs once each, a did without a
    /// will nothing, and a store to an `automaticallyNotifies: false` property nothing by itself.
    private func announce(_ change: Operation.ManualChange, on root: Root, _ value: Int) {
        switch change {
        case .manualAnnounced:
            expectChange(of: .manual, on: root)
            root.willChangeValue(for: \.manual)
            root.manual = value
            root.didChangeValue(for: \.manual)
        case .manualSilently:
            root.manual = value
        case .valueAnnounced:
            expectChange(of: .value, on: root)
            root.willChangeValue(for: \.value)
            root.didChangeValue(for: \.value)
        case .valueSetInside:
            expectChange(of: .value, on: root, times: 2)
            root.willChangeValue(for: \.value)
            root.value = value
            root.didChangeValue(for: \.value)
        case .unmatchedDidChange:
            root.didChangeValue(for: \.value)
        case .withChange:
            expectChange(of: .manual, on: root)
            root.withChange(of: \.manual) { root.manual = value }
        case .nestedManual:
            expectChange(of: .manual, on: root, times: 2)
            root.willChangeValue(for: \.manual)
            root.willChangeValue(for: \.manual)
            root.manual = value
            root.didChangeValue(for: \.manual)
            root.didChangeValue(for: \.manual)
        }
    }
}
