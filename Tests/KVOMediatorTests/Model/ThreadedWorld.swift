import Foundation
import KVOMediator
import Synchronization

@testable import KVOMediator

/// What a threaded run's registration observes; each key belongs to a group of properties that one
/// thread writes (and only that thread reads).
enum ThreadedKey: CaseIterable {
    case x, y, pick, songs, tags, count, level, summary, value, chain, items, chainItems, chainLabel

    /// The group of properties the key reads: x, y and flag (pick); songs; tags; count; level
    /// (summary); the chains' links and the last links' value, items and label.
    var group: Int {
        switch self {
        case .x, .y, .pick: 0
        case .songs: 1
        case .tags: 2
        case .count: 3
        case .level, .summary: 4
        case .value, .chain, .items, .chainItems, .chainLabel: 5
        }
    }

    static let groups = 6

    /// Observed on a last link; every other key on a root.
    var isOnLinkB: Bool { self == .value || self == .items }

    /// A stored `@Observed` property: a typed registration of it reads nothing once its slot is known,
    /// so threads that do not write it may observe it.
    var isObservableFromOtherThreads: Bool {
        [.x, .y, .songs, .tags, .count, .value, .items].contains(self)
    }

    /// The string key path of the same property, for keys that have one.
    var stringPath: String? {
        switch self {
        case .x: "x"
        case .y: "y"
        case .songs: "songs"
        case .tags: "tags"
        case .count: "count"
        case .value: "value"
        case .items: "items"
        case .pick, .level, .summary, .chain, .chainItems, .chainLabel: nil
        }
    }

    /// Calls `user` with the key's typed key path; the key paths are constants, so that each is one
    /// key path object for the library's cache of direct slots.
    func use(on object: AnyObject, _ user: some TypedKeyPathUser) {
        if let b = object as? ModelLinkB {
            return self == .items ? user.use(b, ThreadedKeyPaths.items) : user.use(b, ThreadedKeyPaths.value)
        }
        guard let root = object as? ModelRoot else { return }
        switch self {
        case .x: user.use(root, ThreadedKeyPaths.x)
        case .y: user.use(root, ThreadedKeyPaths.y)
        case .pick: user.use(root, \ModelRoot.pick)
        case .songs: user.use(root, ThreadedKeyPaths.songs)
        case .tags: user.use(root, ThreadedKeyPaths.tags)
        case .count: user.use(root, ThreadedKeyPaths.count)
        case .level: user.use(root, \ModelRoot.level)
        case .summary: user.use(root, \ModelRoot.summary)
        case .chain: user.use(root, \ModelRoot.a?.b?.value)
        case .chainItems: user.use(root, \ModelRoot.a?.b?.items)
        case .chainLabel: user.use(root, \ModelRoot.a?.b?.label)
        case .value, .items: break
        }
    }
}

/// The key paths other threads observe, one object each.
enum ThreadedKeyPaths {
    static let x = \ModelRoot.x
    static let y = \ModelRoot.y
    static let songs = \ModelRoot.songs
    static let tags = \ModelRoot.tags
    static let count = \ModelRoot.count
    static let value = \ModelLinkB.value
    static let items = \ModelLinkB.items

    static func of(_ key: ThreadedKey) -> AnyKeyPath? {
        switch key {
        case .x: x
        case .y: y
        case .songs: songs
        case .tags: tags
        case .count: count
        case .value: value
        case .items: items
        case .pick, .level, .summary, .chain, .chainItems, .chainLabel: nil
        }
    }
}

/// One property of one shared object, written by one thread, which numbers its writes 1, 2, 3…
final class Channel: Sendable {
    let key: ThreadedKey
    /// The number of the last write started, and of the last write completed.
    let started = Atomic<Int>(0)
    let completed = Atomic<Int>(0)

    init(key: ThreadedKey) {
        self.key = key
    }

    /// Performs write number `started + 1` with `write`, numbering it before and after.
    func write(_ write: (Int) -> Void) {
        let number = started.load(ordering: .relaxed) + 1
        started.store(number, ordering: .releasing)
        write(number)
        completed.store(number, ordering: .releasing)
    }
}

/// The objects the threads share: two roots, each with a whole chain to begin with, and the channels
/// of their properties.
final class ThreadedWorld: @unchecked Sendable {  // objects: one writer per property; the rest is immutable
    let journal = ThreadedJournal()
    let roots = [ModelRoot(), ModelRoot()]
    let linkAs = [ModelLinkA(), ModelLinkA()]
    let linkBs = [ModelLinkB(value: 0), ModelLinkB(value: 0)]
    /// Channels by object (root 0, root 1, link B 0, link B 1) and key.
    let channels: [[ThreadedKey: Channel]]
    let threads: Int
    /// The key paths other threads observe, pinned in the library's cache before the threads start.
    private var pinnedKeyPaths: [ThreadedKey: (keyPath: AnyKeyPath, objectType: AnyObject.Type)] = [:]

    init(threads: Int) {
        self.threads = threads
        let rootKeys: [ThreadedKey] = [.x, .y, .songs, .tags, .count, .level]
        channels =
            (0..<2).map { _ in Dictionary(uniqueKeysWithValues: rootKeys.map { ($0, Channel(key: $0)) }) }
            + (0..<2).map { _ in [.value: Channel(key: .value), .items: Channel(key: .items)] }
        for index in 0..<2 {
            roots[index].a = linkAs[index]
            linkAs[index].b = linkBs[index]
        }
        for (index, object) in roots.enumerated() { journal.track(object, as: "root \(index)") }
        for (index, object) in linkAs.enumerated() { journal.track(object, as: "link A \(index)") }
        for (index, object) in linkBs.enumerated() { journal.track(object, as: "link B \(index)") }
    }

    /// The thread that writes the properties of `key` (with fewer threads than groups, a thread
    /// writes several groups).
    func writer(of key: ThreadedKey) -> Int {
        key.group % threads
    }

    /// The object `index` of the kind `key` is observed on (0 or 1) and its channel for `key`.
    func target(_ key: ThreadedKey, index: Int) -> (object: AnyObject, channel: Channel?) {
        if key.isOnLinkB { return (linkBs[index], channels[2 + index][key]) }
        let channelKey: ThreadedKey = key == .summary ? .level : key
        return (roots[index], channels[index][channelKey])
    }

    /// Learns each directly observed key path's slot and pins it in the library's cache until the world
    /// goes, so that registrations from threads that do not write the property find it and read nothing
    /// (a registration that evaluated it would race the writing thread's sets), whatever other tests
    /// record meanwhile. Called before the threads start. Returns how many it pinned: none with caches off
    /// (``CacheSwitch``), when other threads then observe none of them.
    func learnDirectSlots() -> Int {
        guard CacheSwitch.cachesAreOn else { return 0 }
        for key in ThreadedKey.allCases where key.isObservableFromOtherThreads {
            let (object, _) = target(key, index: 0)
            let objectType: AnyObject.Type = key.isOnLinkB ? ModelLinkB.self : ModelRoot.self
            guard let keyPath = ThreadedKeyPaths.of(key) else { continue }
            // Learnt again if another test's key path took its place before it was read back.
            for _ in 0..<5 where pinnedKeyPaths[key] == nil {
                key.use(on: object, SlotLearning())
                if let field = DirectSlotCache.shared.field(of: keyPath, on: objectType) {
                    DirectSlotCache.shared.pin(field, of: keyPath, on: objectType)
                    pinnedKeyPaths[key] = (keyPath, objectType)
                }
            }
        }
        return pinnedKeyPaths.count
    }

    /// Whether threads that do not write the property of `key` may observe it: its slot is pinned in
    /// the library's cache, so their registrations read nothing.
    func isDirectSlotPinned(_ key: ThreadedKey) -> Bool {
        pinnedKeyPaths[key] != nil
    }

    deinit {
        for pinned in pinnedKeyPaths.values { DirectSlotCache.shared.unpin(pinned.keyPath, on: pinned.objectType) }
    }
}

/// Registers a key path once, so that the library learns its slot.
private struct SlotLearning: TypedKeyPathUser {
    func use<Object: KeyValueObservable & SendableMetatype, Value: ModelValueConvertible & Sendable>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value>
    ) {
        (try? object.observe(keyPath) { _, _ in })?.invalidate()
    }
}
