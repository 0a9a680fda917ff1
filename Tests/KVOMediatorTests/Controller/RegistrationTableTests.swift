import Testing

@testable import KVOMediator

/// An object to key the table by.
private final class Keyed: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var value = 0
    @Observed var items = Array(repeating: 0, count: 64)
}

/// A registration on `object` that is never started (the table only stores it).
private func registration(on object: Keyed) -> KVOInfo {
    TypedKVOInfo(
        object: object,
        reader: .typed(\Keyed.value),
        options: [.new],
        owner: nil,
        box: _HandlerBox<Keyed, Int> { _, _ in }
    )
}

/// A deterministic generator, so that a failure can be replayed.
private struct SplitMix {
    var state: UInt64

    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

@Suite struct RegistrationTableTests {
    /// Random inserts and removals, checked after each against a plain model: every object's
    /// registrations are found, and only those (removal moves buckets back across the table's end too).
    @Test(arguments: [1, 2, 3])
    func matchesAModelThroughRandomInsertsAndRemovals(seed: UInt64) {
        let objects = (0..<48).map { _ in Keyed() }
        var model: [ObjectIdentifier: [KVOInfo]] = [:]
        var table = RegistrationTable()
        var random = SplitMix(state: seed)
        for step in 0..<6_000 {
            let object = objects[random.next(below: objects.count)]
            let id = ObjectIdentifier(object)
            let existing = model[id, default: []]
            switch random.next(below: 10) {
            case 0..<5:
                // Bias towards a full table: more inserts than removals until it is large.
                if table.count < 120 || random.next(below: 2) == 0 {
                    let info = registration(on: object)
                    table.insert(info, for: id)
                    model[id, default: []].append(info)
                }
            case 5..<8:
                guard let victim = existing.isEmpty ? nil : existing[random.next(below: existing.count)] else { break }
                let wasThere = table.remove(victim, of: id)
                #expect(wasThere)
                model[id]!.removeAll { $0 === victim }
            case 8:
                let removed = table.removeAll(of: id) { _ in true }
                #expect(Set(removed.map(ObjectIdentifier.init)) == Set(existing.map(ObjectIdentifier.init)))
                model[id] = []
            default:
                let strangerWasThere = table.remove(registration(on: object), of: id)
                #expect(!strangerWasThere)
            }
            #expect(table.count == model.values.reduce(0) { $0 + $1.count }, "step \(step)")
            #expect(table.contains(id) == !(model[id] ?? []).isEmpty, "step \(step)")
            if step % 97 == 0 {
                for object in objects {
                    let id = ObjectIdentifier(object)
                    let found = Set(table.infos(of: id).map(ObjectIdentifier.init))
                    #expect(found == Set((model[id] ?? []).map(ObjectIdentifier.init)), "step \(step)")
                }
            }
        }
        // Grow well past the size above, then drain one registration at a time (the table shrinks).
        for index in 0..<600 {
            let object = objects[index % objects.count]
            let info = registration(on: object)
            table.insert(info, for: ObjectIdentifier(object))
            model[ObjectIdentifier(object), default: []].append(info)
        }
        for object in objects.dropLast(3) {
            let id = ObjectIdentifier(object)
            for victim in model[id] ?? [] {
                let wasThere = table.remove(victim, of: id)
                #expect(wasThere)
            }
            model[id] = []
            for other in objects {
                let otherID = ObjectIdentifier(other)
                let found = Set(table.infos(of: otherID).map(ObjectIdentifier.init))
                #expect(found == Set((model[otherID] ?? []).map(ObjectIdentifier.init)))
            }
        }
        let grouped = table.grouped()
        #expect(grouped.reduce(0) { $0 + $1.infos.count } == table.count)
        #expect(grouped.count == model.values.filter { !$0.isEmpty }.count)
        for group in grouped {
            #expect(Set(group.infos.map(ObjectIdentifier.init)) == Set(model[group.id]!.map(ObjectIdentifier.init)))
        }
        let all = table.removeAll()
        #expect(all.count == model.values.reduce(0) { $0 + $1.count })
        #expect(table.count == 0)
        #expect(!table.contains(ObjectIdentifier(objects[0])))
    }

    /// One object's registrations come back in the order they were added, and matching removes only
    /// the matches.
    @Test func keepsOneObjectsRegistrationsInOrderAndRemovesMatchesOnly() {
        let object = Keyed()
        let other = Keyed()
        let id = ObjectIdentifier(object)
        let infos = (0..<5).map { _ in registration(on: object) }
        var table = RegistrationTable()
        for info in infos { table.insert(info, for: id) }
        table.insert(registration(on: other), for: ObjectIdentifier(other))
        #expect(table.infos(of: id).map(ObjectIdentifier.init) == infos.map(ObjectIdentifier.init))
        let removed = table.removeAll(of: id) { $0 === infos[1] || $0 === infos[3] }
        #expect(Set(removed.map(ObjectIdentifier.init)) == [ObjectIdentifier(infos[1]), ObjectIdentifier(infos[3])])
        #expect(
            table.infos(of: id).map(ObjectIdentifier.init)
                == [infos[0], infos[2], infos[4]].map(ObjectIdentifier.init)
        )
        #expect(table.count == 4)
        #expect(table.infos(of: ObjectIdentifier(other)).count == 1)
    }

    /// Past the index threshold, an object's registrations are found by key path: a controller with
    /// many key paths of one object dedupes, unobserves and delivers each one exactly.
    @Test func manyKeyPathsOfOneObjectAreFoundByKeyPath() {
        let object = Keyed()
        let observer = TestObserver()
        let controller = observer.kvoController
        let fired = Recorder<Int>()
        let count = 50
        #expect(count > RegistrationTable.indexThreshold)
        for index in 0..<count {
            controller.observe(object, keyPath: \.items[index], options: [.new]) { _, _, change in fired.append(change)
            }
        }
        // The same key paths again (formed anew: equal, not identical) are already observed.
        for index in 0..<count {
            controller.observe(object, keyPath: \.items[index], options: [.new]) { _, _, change in fired.append(change)
            }
        }
        controller.observe(object, keyPath: \.value, options: [.new]) { _, _, change in fired.append(change) }
        #expect(controller.observationCount == count + 1)
        for index in stride(from: 0, to: count, by: 2) {
            controller.unobserve(object, keyPath: \.items[index])
        }
        #expect(controller.observationCount == count / 2 + 1)
        object.value = 7
        #expect(fired.changes.compactMap(\.newValue) == [7])
        controller.unobserve(object, keyPath: \.value)
        object.items[1] = 5
        // Every remaining `items[i]` registration reads the array, so each hears the set once.
        #expect(fired.changes.count == 1 + count / 2)
        controller.unobserve(object)
        #expect(controller.observationCount == 0)
    }
}
