import Foundation

/// What a collection change announced by hand says: what its `willChange` and `didChange` must agree on.
enum CollectionChangeSignature: Equatable {
    /// `willChange(kind, at: indexes, for:)`, of an array.
    case indexed(KVOChangeKind, IndexSet)
    /// `willChange(mutation, using: objects, for:)`, of a set; the objects are boxed (a `Set` of the
    /// set's element type).
    case setMutation(KVOSetMutation, AnyHashable)

    /// The call as it is written, for messages: `didChange(.insertion, at: [2], for: songs)`.
    func call(_ name: String, keyPath: String) -> String {
        switch self {
        case .indexed(let kind, let indexes):
            "\(name)(.\(kind), at: \(Array(indexes)), for: \(keyPath))"
        case .setMutation(let mutation, let objects):
            "\(name)(.\(mutation), using: \(objects.base), for: \(keyPath))"
        }
    }
}

/// A collection change announced by `willChange`, kept (in its ``ManualChange``) until its `didChange`.
struct PendingCollectionChange {
    let signature: CollectionChangeSignature
    /// The elements removed or replaced, read before the change (an `[Element]` or a `Set<Element>`);
    /// nil for none, or when nobody is told.
    let removed: Any?
    /// A set mutation's added members, known before the change (a `Set<Element>`); nil for none.
    let added: Any?
    /// False when the `willChange` was misused (and reported): its `didChange` then ends it silently.
    let isValid: Bool
}
