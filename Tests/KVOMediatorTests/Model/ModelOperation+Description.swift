import Foundation
import KVOMediator

/// Each operation as the Swift it performs, so that a failing prefix reads as a program.
extension ModelOperation: CustomStringConvertible {
    var description: String {
        switch self {
        case .newRoot(let slot): "roots[\(slot)] = ModelRoot()"
        case .dropRoot(let slot): "roots[\(slot)] = nil"
        case .newLinkA(let slot): "linkAs[\(slot)] = ModelLinkA()"
        case .dropLinkA(let slot): "linkAs[\(slot)] = nil"
        case .newLinkB(let slot, let value): "linkBs[\(slot)] = ModelLinkB(value: \(value))"
        case .dropLinkB(let slot): "linkBs[\(slot)] = nil"
        case .transaction(let writes): "withKVOTransaction { \(writes.map(\.description).joined(separator: "; ")) }"
        case .setX(let root, let value): "roots[\(root)].x = \(value)"
        case .setY(let root, let value): "roots[\(root)].y = \(value)"
        case .setFlag(let root, let value): "roots[\(root)].flag = \(value)"
        case .setLevel(let root, let value): "roots[\(root)].level = \(value)"
        case .linkA(let root, let target): "roots[\(root)].a = \(slotName("linkAs", target))"
        case .linkB(let a, let target): "linkAs[\(a)].b = \(slotName("linkBs", target))"
        case .linkBThroughRoot(let root, let target): "roots[\(root)].a?.b = \(slotName("linkBs", target))"
        case .linkPeer(let root, let target): "roots[\(root)].peer = \(slotName("linkBs", target))  // weak"
        case .setValue(let b, let value): "linkBs[\(b)].value = \(value)"
        case .setChainValue(let root, let value): "roots[\(root)].a?.b?.value = \(value)"
        case .setLabel(let b, let value): "linkBs[\(b)].label = \(value)"
        case .assignItems(let b, let items): "linkBs[\(b)].items = \(items)"
        case .editItems(let b, let edit): "linkBs[\(b)].mutableArrayValue(for: \\.items).\(edit)"
        case .editChainItems(let root, let edit):
            "roots[\(root)].a?.b?.mutableArrayValue(for: \\.items).\(edit)  // if the chain is whole"
        case .assignSongs(let root, let songs): "roots[\(root)].songs = \(songs)"
        case .editSongs(let root, let edit): "roots[\(root)].mutableArrayValue(for: \\.songs).\(edit)"
        case .assignTags(let root, let tags): "roots[\(root)].tags = \(tags.sorted())"
        case .editTags(let root, let edit): "roots[\(root)].mutableSetValue(for: \\.tags).\(edit)"
        case .announceCount(let root, let values):
            "roots[\(root)]: willChangeValue(for: \\.count); count = \(values.map(String.init).joined(separator: "; count = ")); "
                + "didChangeValue(for: \\.count)"
        case .setCountSilently(let root, let value): "roots[\(root)].count = \(value)  // not announced"
        case .unmatchedDidChangeCount(let root): "roots[\(root)].didChangeValue(for: \\.count)  // unmatched"
        case .setByString(let target, let key, let values): Self.setByStringDescription(target, key, values)
        case .editQueue(let root, let edit): "roots[\(root)].queue.\(edit)  // announced with willChange(_:at:for:)"
        case .assignQueue(let root, let queue): "roots[\(root)].queue = \(queue)"
        case .mutateMarks(let root, let mutation, let objects):
            "roots[\(root)].withChange(.\(mutation), using: \(objects.sorted()), of: \\.marks) { … }"
        case .assignCrew(let root, let members): "roots[\(root)].crew = \(members.map { "linkBs[\($0)]" })"
        case .editCrew(let root, let edit):
            "roots[\(root)].mutableArrayValue(for: \\.crew).\(edit)  // elements: linkBs slots"
        case .assignSquad(let root, let members): "roots[\(root)].squad = Set(\(members.map { "linkBs[\($0)]" }))"
        case .editSquad(let root, let edit):
            "roots[\(root)].mutableSetValue(for: \\.squad).\(edit)  // elements: linkBs slots"
        case .newObserver(let slot, let retains):
            "observers[\(slot)] = ModelObserver(); its controller = KVOController(observer:, retainsObserved: \(retains))"
        case .dropObserver(let slot): "observers[\(slot)] = nil"
        case .newController(let observer, let retains):
            "observers[\(observer)].controller = KVOController(observer:, retainsObserved: \(retains))"
        case .dropController(let observer): "observers[\(observer)].controller = nil"
        case .orphanController(let observer):
            "orphans.append(observers[\(observer)].controller); observers[\(observer)] = nil"
        case .dropOrphans: "orphans = []"
        case .observe(let observer, let form, let target, let keys, let options):
            "observers[\(observer)].controller.observe(\(target), \(keyText(keys, form: form)), options: \(options))"
                + " {\(form)}  // \(keys.count == 1 ? "one registration" : "\(keys.count) registrations")"
        case .unobserveKey(let observer, let target, let key, let byString):
            "observers[\(observer)].controller.unobserve(\(target), "
                + (key.isEach
                    ? "\(key))" : byString ? "keyPath: \"\(key.stringPath ?? "?")\")" : "keyPath: \(key))")
        case .unobserveObject(let observer, let target): "observers[\(observer)].controller.unobserve(\(target))"
        case .unobserveAll(let observer): "observers[\(observer)].controller.unobserveAll()"
        case .newToken(let slot, let target, let key, let options):
            "tokens[\(slot)] = try \(target).observe(\(key), options: \(options)) {…}"
        case .invalidateToken(let slot): "tokens[\(slot)].invalidate()"
        case .dropToken(let slot): "tokens[\(slot)] = nil"
        case .openValues(let slot, let target, let key): "streams[\(slot)] = try \(target).values(for: \(key))"
        case .openChanges(let slot, let target, let key, let options):
            key.isEach
                ? "streams[\(slot)] = try \(target).changes(forEach: \(key.eachCollection), keyPath: \\.value, options: \(options))"
                : "streams[\(slot)] = try \(target).changes(for: \(key), options: \(options))"
        case .closeStream(let slot): "streams[\(slot)]: cancel its task and read what it buffered"
        case .arm(let registration, let action): "r\(registration)'s next callback: \(action)"
        case .expectNoRegistrations: "// every object left has no registration"
        case .deliverCoalesced: "lane: run what waits (coalesced deliveries), then hold it again"
        }
    }

    private func slotName(_ array: String, _ slot: Int?) -> String {
        slot.map { "\(array)[\($0)]" } ?? "nil"
    }

    private func keyText(_ keys: [ModelKey], form: ObserveForm) -> String {
        switch form {
        case .string: "keyPath: \"\(keys.first?.stringPath ?? "?")\""
        case .keyPathsBlock, .delegate: "keyPaths: [\(keys.map(\.description).joined(separator: ", "))]"
        case .block, .action, .coalesced:
            keys.first?.isEach == true
                ? "\(keys[0])" : "keyPath: \(keys.first.map(\.description) ?? "?")"
        }
    }
}

extension ArmedAction: CustomStringConvertible {
    var description: String {
        switch self {
        case .dropObserver(let slot): "observers[\(slot)] = nil"
        case .dropController(let slot): "observers[\(slot)].controller = nil"
        case .invalidateToken(let slot): "tokens[\(slot)].invalidate()"
        }
    }
}
