import Foundation
import KVOMediator

/// What a registration of the model's world observes.
enum ModelKey: Int, CaseIterable, CustomStringConvertible {
    /// `\ModelRoot.x`, or `"x"`: one stored property.
    case x
    /// `\ModelRoot.a?.b?.value`, or `"a.b.value"`: a chain of three links, the first two optional.
    case chain
    /// `\ModelRoot.pick`: a computed property that reads `x` or `y`, depending on `flag`.
    case pick
    /// `\ModelRoot.summary`: a cached value whose dependency on `level` is declared.
    case summary
    /// `\ModelRoot.level`: custom storage announced by hand.
    case level
    /// `\ModelRoot.songs`, or `"songs"`: an array, mutated through `mutableArrayValue(for:)`.
    case songs
    /// `\ModelRoot.tags`, or `"tags"`: a set, mutated through `mutableSetValue(for:)`.
    case tags
    /// `\ModelRoot.count`, or `"count"`: `@Observed(automaticallyNotifies: false)`, announced by hand.
    case count
    /// `\ModelLinkB.value`, or `"value"`: the last link's property, observed on a `ModelLinkB`.
    case value
    /// `\ModelRoot.a?.b?.items`, or `"a.b.items"`: a chain ending at an array, which is mutated through
    /// `mutableArrayValue(for:)` on the last link.
    case chainItems
    /// `\ModelRoot.a?.b?.label`: a chain ending at custom storage that the last link's `value` is
    /// declared to affect.
    case chainLabel
    /// `\ModelLinkB.items`, or `"items"`: the last link's array, observed on a `ModelLinkB`.
    case items
    /// `\ModelLinkB.label`: the last link's declared dependency, observed on a `ModelLinkB`.
    case label
    /// `\ModelRoot.queue`: an array with custom storage, changed in place with indexed announcements.
    case queue
    /// `\ModelRoot.marks`, or `"marks"`: a set changed by hand with set mutations.
    case marks

    /// `\ModelRoot.peer?.value`, or `"peer.value"`: a chain through an `@ObservedWeak` link, which
    /// breaks (one record, new value nil) when the last link it holds is released.
    case peerValue
    /// `each: \ModelRoot.crew, keyPath: \ModelLinkB.value`: the `value` of every last link in the root's
    /// `crew`, observed element by element (`ReferenceModel+Elements`); made only in the block form of a
    /// controller, as a token and as a change stream.
    case eachCrewValue
    /// `each: \ModelRoot.squad, keyPath: \ModelLinkB.value`: the same for the root's set of last links,
    /// with no indexes; its records' values come in no particular order, and are compared sorted.
    case eachSquadValue

    static let rootKeys: [ModelKey] = [
        .x, .chain, .pick, .summary, .level, .songs, .tags, .count, .chainItems, .chainLabel, .queue, .marks,
        .peerValue,
    ]
    static let linkBKeys: [ModelKey] = [.value, .items, .label]

    /// A chain of the root's links: its typed and string forms meet on one controller only while it can
    /// be followed to its end (`ReferenceModel.formsMeet`).
    var isChain: Bool {
        self == .chain || self == .chainItems || self == .chainLabel || self == .peerValue
    }

    /// A collection: its proxy mutations reach its registrations with their kind and indexes.
    var isCollection: Bool {
        self == .songs || self == .tags || self == .items || self == .chainItems || self == .queue || self == .marks
    }

    /// The string key path naming the same property, for keys that have one.
    var stringPath: String? {
        switch self {
        case .x: "x"
        case .chain: "a.b.value"
        case .songs: "songs"
        case .tags: "tags"
        case .count: "count"
        case .value: "value"
        case .chainItems: "a.b.items"
        case .items: "items"
        case .marks: "marks"
        case .peerValue: "peer.value"
        case .pick, .summary, .level, .chainLabel, .label, .queue, .eachCrewValue, .eachSquadValue: nil
        }
    }

    /// The key as Swift names it after `\.`.
    var swiftName: String {
        switch self {
        case .x: "x"
        case .chain: "a?.b?.value"
        case .pick: "pick"
        case .summary: "summary"
        case .level: "level"
        case .songs: "songs"
        case .tags: "tags"
        case .count: "count"
        case .value: "value"
        case .chainItems: "a?.b?.items"
        case .chainLabel: "a?.b?.label"
        case .items: "items"
        case .label: "label"
        case .queue: "queue"
        case .marks: "marks"
        case .peerValue: "peer?.value"
        case .eachCrewValue: "crew[each].value"
        case .eachSquadValue: "squad[each].value"
        }
    }

    /// An observation of a root's collection of last links, element by element.
    var isEach: Bool { self == .eachCrewValue || self == .eachSquadValue }

    /// The collection an element-wise key observes, as Swift names it.
    var eachCollection: String { self == .eachSquadValue ? "\\.squad" : "\\.crew" }

    var description: String {
        switch self {
        case .eachCrewValue: "each: \\.crew, keyPath: \\.value"
        case .eachSquadValue: "each: \\.squad, keyPath: \\.value"
        default: "\\." + swiftName
        }
    }
}

/// An observed object of the world, by the slot that holds it.
enum ModelTarget: Hashable, CustomStringConvertible {
    case root(Int)
    case linkB(Int)

    var description: String {
        switch self {
        case .root(let slot): "roots[\(slot)]"
        case .linkB(let slot): "linkBs[\(slot)]"
        }
    }
}

/// Which `KVOController` form an observe call uses.
enum ObserveForm: CaseIterable, CustomStringConvertible {
    /// `observe(_:keyPath:options:block:)`, typed.
    case block
    /// `observe(_:keyPath:options:action:)`.
    case action
    /// `observe(_:keyPaths:options:block:)`, values as `Any`.
    case keyPathsBlock
    /// `observe(_:keyPaths:options:context:)`, delivered to `KeyValueObserving`.
    case delegate
    /// `observe(_:keyPath: String, options:block:)`.
    case string
    /// `observe(_:keyPath:options:delivery: .queue(lane, coalescing: .latest), block:)`: records wait on the
    /// world's held queue, merging, until `deliverCoalesced`.
    case coalesced

    var description: String {
        switch self {
        case .block: "block"
        case .action: "action"
        case .keyPathsBlock: "keyPaths+block"
        case .delegate: "keyPaths+context"
        case .string: "string"
        case .coalesced: "queue(lane, coalescing: .latest)"
        }
    }
}

/// An array mutation through `mutableArrayValue(for:)`.
enum ArrayEdit: Hashable {
    case append(Int)
    case appendTwo(Int, Int)
    case insert(Int, at: Int)
    case remove(at: Int)
    case removeSeveral(IndexSet)
    case replace(at: Int, with: Int)
    case removeAll
}

/// A set mutation through `mutableSetValue(for:)`.
enum SetEdit: Hashable {
    case insert(Int)
    case remove(Int)
    case formUnion([Int])
    case subtract([Int])
    case formIntersection([Int])
    case removeAll
    /// `replaceAll(with:)`: Cocoa's `setSet:`.
    case replaceAll([Int])
}

/// What an armed registration does from inside its next callback.
enum ArmedAction: Hashable {
    case dropObserver(Int)
    case dropController(Int)
    case invalidateToken(Int)
}

/// One step of a random program. Objects, observers, tokens and streams are named by the slot that
/// holds them; registrations by the number of the attempt that made them (every key of every observe
/// call, token and stream counts, in order), which the model and the library count alike.
enum ModelOperation: Hashable {
    case newRoot(slot: Int)
    case dropRoot(slot: Int)
    case newLinkA(slot: Int)
    case dropLinkA(slot: Int)
    case newLinkB(slot: Int, value: Int)
    case dropLinkB(slot: Int)

    case setX(root: Int, Int)
    case setY(root: Int, Int)
    case setFlag(root: Int, Bool)
    case setLevel(root: Int, Int)
    /// `roots[root].a = linkAs[to]` (nil: `= nil`).
    case linkA(root: Int, to: Int?)
    /// `linkAs[a].b = linkBs[to]`.
    case linkB(a: Int, to: Int?)
    /// `roots[root].a?.b = linkBs[to]`.
    case linkBThroughRoot(root: Int, to: Int?)
    /// `roots[root].peer = linkBs[to]`: a weak link, which does not keep the last link alive.
    case linkPeer(root: Int, to: Int?)
    case setValue(b: Int, Int)
    /// `linkBs[b].label = v`: custom storage, announced by hand.
    case setLabel(b: Int, Int)
    case assignItems(b: Int, [Int])
    /// `linkBs[b].mutableArrayValue(for: \.items)`, mutated.
    case editItems(b: Int, ArrayEdit)
    /// `roots[root].a?.b?.mutableArrayValue(for: \.items)`, mutated.
    case editChainItems(root: Int, ArrayEdit)
    /// `roots[root].a?.b?.value = v`.
    case setChainValue(root: Int, Int)
    case assignSongs(root: Int, [Int])
    case editSongs(root: Int, ArrayEdit)
    case assignTags(root: Int, Set<Int>)
    case editTags(root: Int, SetEdit)
    /// `willChangeValue(for: \.count)`, a set of each value, `didChangeValue(for: \.count)`.
    case announceCount(root: Int, [Int])
    case setCountSilently(root: Int, Int)
    case unmatchedDidChangeCount(root: Int)
    /// `try target.setValue(_:atKeyPath: key.stringPath!)` (`ModelOperation+SetByString`).
    case setByString(target: ModelTarget, key: ModelKey, [Int])
    /// `roots[root].queue` changed in place, announced with `willChange(_:at:for:)` / `didChange(_:at:for:)`.
    case editQueue(root: Int, ArrayEdit)
    /// `roots[root].queue = v`: a setting announced by hand.
    case assignQueue(root: Int, [Int])
    /// `roots[root].marks` changed by `mutation` with `objects`, announced with `willChange(_:using:for:)`.
    case mutateMarks(root: Int, KVOSetMutation, [Int])
    /// `roots[root].crew = members.map { linkBs[$0] }`.
    case assignCrew(root: Int, members: [Int])
    /// `roots[root].mutableArrayValue(for: \.crew)`, mutated; the edit's elements are `linkBs` slots.
    case editCrew(root: Int, ArrayEdit)
    /// `roots[root].squad = Set(members.map { linkBs[$0] })`.
    case assignSquad(root: Int, members: [Int])
    /// `roots[root].mutableSetValue(for: \.squad)`, mutated; the edit's elements are `linkBs` slots.
    case editSquad(root: Int, SetEdit)

    case newObserver(slot: Int, retains: Bool)
    case dropObserver(slot: Int)
    case newController(observer: Int, retains: Bool)
    case dropController(observer: Int)
    /// Keeps the observer's controller and drops the observer: a controller outliving its observer.
    case orphanController(observer: Int)
    case dropOrphans

    case observe(observer: Int, form: ObserveForm, target: ModelTarget, keys: [ModelKey], options: KVOOptions)
    case unobserveKey(observer: Int, target: ModelTarget, key: ModelKey, byString: Bool)
    case unobserveObject(observer: Int, target: ModelTarget)
    case unobserveAll(observer: Int)
    case newToken(slot: Int, target: ModelTarget, key: ModelKey, options: KVOOptions)
    case invalidateToken(slot: Int)
    case dropToken(slot: Int)
    case openValues(slot: Int, target: ModelTarget, key: ModelKey)
    case openChanges(slot: Int, target: ModelTarget, key: ModelKey, options: KVOOptions)
    /// Ends a stream (its consuming task is cancelled) and compares everything it received.
    case closeStream(slot: Int)
    /// The registration's next callback performs `action`, once.
    case arm(registration: Int, action: ArmedAction)
    /// Checks that no object has a registration left (teardown, after every front end has gone).
    case expectNoRegistrations
    /// The held queue of coalescing deliveries runs what waits on it, then is held again.
    case deliverCoalesced
    /// `withKVOTransaction { … }` around writes that release nothing (no link is changed in it).
    indirect case transaction([ModelOperation])

    /// Whether the write can go in a transaction: it changes no link (so nothing is released inside it),
    /// no root's `crew` (an observation of elements reads the values of those that leave when it is told,
    /// at the transaction's end: the model does not state that) and reports no misuse.
    var isTransactable: Bool {
        switch self {
        case .setX, .setY, .setFlag, .setLevel, .setValue, .setChainValue, .setLabel, .assignItems, .editItems,
            .editChainItems, .assignSongs, .editSongs, .assignTags, .editTags, .announceCount, .setCountSilently,
            .editQueue, .assignQueue, .mutateMarks:
            true
        default: false
        }
    }
}
