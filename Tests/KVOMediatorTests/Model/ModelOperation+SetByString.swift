import Foundation
import KVOMediator

/// Sets by string key path (`setValue(_:atKeyPath:)`) in the model's programs: of each key that has a
/// string path, on a root or a last link, with the value of a typed set. The model states for it what
/// it states for the typed set; the library must deliver exactly that.
extension ModelKey {
    /// The keys that can be set by string key path on `target` (a set of `count` is not announced).
    static func settableByString(on target: ModelTarget) -> [ModelKey] {
        switch target {
        case .root: [.x, .chain, .songs, .tags, .count, .chainItems]
        case .linkB: [.value, .items]
        }
    }

    /// The value a set by string of this key passes for `values`: an element, an array, or a set.
    func stringSetValue(_ values: [Int]) -> Any {
        switch self {
        case .tags: Set(values)
        case .songs, .items, .chainItems: values
        default: values[0]
        }
    }
}

extension ProgramGenerator {
    /// A set by string key path of a root's or a last link's key, with fresh values.
    mutating func setByStringWrite() -> ModelOperation? {
        guard let target = someTarget() else { return nil }
        let key = random.element(of: ModelKey.settableByString(on: target))!
        let count = key.isCollection ? random.below(4) : 1
        let values = (0..<count).map { _ in key == .tags ? random.below(6) : freshValue() }
        return .setByString(target: target, key: key, values)
    }
}

extension ReferenceModel {
    /// What the typed set of the same key and value states; nothing while a link of a chain is nil
    /// (the library throws, and sets nothing).
    mutating func applySetByString(_ target: ModelTarget, _ key: ModelKey, _ values: [Int]) {
        guard let object = object(target) else { return }
        let end: Int? = if case .linkB = target { object } else { chainEnd(of: object) }
        switch key {
        case .x: change(ModelSlot(object: object, field: .x)) { $0.updateRoot(object) { $0.x = values[0] } }
        case .songs: change(ModelSlot(object: object, field: .songs)) { $0.updateRoot(object) { $0.songs = values } }
        case .tags: change(ModelSlot(object: object, field: .tags)) { $0.updateRoot(object) { $0.tags = Set(values) } }
        case .count: updateRoot(object) { $0.count = values[0] }
        case .chain, .value:
            if let end {
                change(ModelSlot(object: end, field: .value)) { $0.updateLinkB(end) { $0.value = values[0] } }
            }
        case .chainItems, .items:
            if let end { change(ModelSlot(object: end, field: .items)) { $0.updateLinkB(end) { $0.items = values } } }
        default: preconditionFailure("\(key) is not set by string")
        }
    }
}

extension LibraryWorld {
    /// Sets by string key path; a nil link of a chain throws, anything else thrown is a problem. What
    /// was set reads back by string.
    func setByString(_ target: ModelTarget, _ key: ModelKey, _ values: [Int]) {
        guard let object = object(target) as? any KeyValueObservable, let path = key.stringPath else { return }
        let value = key.stringSetValue(values)
        do {
            try object.setValue(value, atKeyPath: path)
        } catch {
            let brokenChain = key.isChain && [.nilLink("a"), .nilLink("a.b")].contains(error.reason)
            if !brokenChain { journal.problem("setValue(_:atKeyPath: \"\(path)\") threw: \(error)") }
            return
        }
        let readBack = try? object.value(atKeyPath: path)
        if readBack.flatMap({ $0 }) as? AnyHashable != value as? AnyHashable {
            journal.problem("\"\(path)\" reads back as \(String(describing: readBack)) after a set to \(value)")
        }
    }
}

extension ModelOperation {
    /// The Swift a set by string key path performs.
    static func setByStringDescription(_ target: ModelTarget, _ key: ModelKey, _ values: [Int]) -> String {
        "try \(target).setValue(\(key.stringSetValue(values)), atKeyPath: \"\(key.stringPath ?? "?")\")"
            + (key == .count ? "  // not announced" : "") + (key.isChain ? "  // throws if the chain is broken" : "")
    }
}
