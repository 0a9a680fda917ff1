import Foundation

/// The typed halves of collection changes announced by hand: arrays by kind and indexes (Cocoa's
/// `willChange:valuesAtIndexes:forKey:`), sets by mutation and objects (Cocoa's
/// `willChangeValueForKey:withSetMutation:usingObjects:`). Each checks its arguments, even with no
/// observer, and hands the rest to ``beginCollectionChange(of:keyPath:signature:kind:indexes:removed:added:announces:isValid:)``.
extension KVORegistrar {
    func arrayWillChange<Object: KeyValueObservable, Element>(
        _ kind: KVOChangeKind,
        at indexes: IndexSet,
        of object: Object,
        keyPath: KeyPath<Object, [Element]>
    ) {
        let signature = CollectionChangeSignature.indexed(kind, indexes)
        let current = untracked { object[keyPath: keyPath] }
        if let problem = Self.indexProblem(kind, indexes, count: current.count, afterTheChange: false) {
            reportInvalidIndexes(problem, call: "willChange", signature: signature, keyPath: keyPath, of: object)
            beginCollectionChange(
                of: object,
                keyPath: keyPath,
                signature: signature,
                kind: kind,
                indexes: indexes,
                removed: nil,
                added: nil,
                announces: false,
                isValid: false
            )
            return
        }
        // The elements about to go, read now; an insertion's are read after it.
        let removed = kind == .insertion || indexes.isEmpty ? nil : indexes.map { current[$0] }
        beginCollectionChange(
            of: object,
            keyPath: keyPath,
            signature: signature,
            kind: kind,
            indexes: indexes,
            removed: removed,
            added: nil,
            announces: !indexes.isEmpty
        )
    }

    func arrayDidChange<Object: KeyValueObservable, Element>(
        _ kind: KVOChangeKind,
        at indexes: IndexSet,
        of object: Object,
        keyPath: KeyPath<Object, [Element]>
    ) {
        let signature = CollectionChangeSignature.indexed(kind, indexes)
        guard let change = popManualChange(of: object, keyPath: keyPath, signature: signature),
            change.collection?.isValid == true, !indexes.isEmpty
        else { return }
        var inserted: [Element]?
        if kind != .removal {
            let current = untracked { object[keyPath: keyPath] }
            if let problem = Self.indexProblem(kind, indexes, count: current.count, afterTheChange: true) {
                reportInvalidIndexes(problem, call: "didChange", signature: signature, keyPath: keyPath, of: object)
                return
            }
            if !change.infos.isEmpty { inserted = indexes.map { current[$0] } }
        }
        if _slowPath(Tracing.isOn.load(ordering: .relaxed)) { traceManualChange(of: object, keyPath: keyPath) }
        endCollectionChange(change, of: object, kind: kind, indexes: indexes, inserted: inserted)
    }

    /// Reports indexes `problem` found in the `call` (`"willChange"` or `"didChange"`) of `signature`.
    private func reportInvalidIndexes<Object: KeyValueObservable>(
        _ problem: String,
        call: String,
        signature: CollectionChangeSignature,
        keyPath: AnyKeyPath,
        of object: Object
    ) {
        let name = displayName(of: keyPath, on: object)
        object.handleKVOError(
            .invalidIndexes(
                call: signature.call(call, keyPath: name),
                problem: problem,
                keyPath: name,
                type: Object.self
            )
        )
    }

    /// What is wrong with `indexes` for a change of `kind` of an array of `count` elements, before or
    /// after the change; nil if nothing is.
    static func indexProblem(_ kind: KVOChangeKind, _ indexes: IndexSet, count: Int, afterTheChange: Bool) -> String? {
        if kind == .setting { return "a setting has no indexes" }
        guard let last = indexes.last else { return nil }
        switch (kind, afterTheChange) {
        case (.insertion, false):
            // Inserted in index order, each new element lands within the array as it grows.
            guard last >= count + indexes.count else { return nil }
            return "index \(last) is beyond the end of the array once \(indexes.count) elements are inserted into "
                + "its \(count)"
        case (.removal, false), (.replacement, false), (.insertion, true), (.replacement, true):
            guard last >= count else { return nil }
            return
                "index \(last) is out of range of the array's \(count) elements \(afterTheChange ? "after" : "before") "
                + "the change"
        default: return nil
        }
    }

    func setWillChange<Object: KeyValueObservable, Element: Hashable>(
        _ mutation: KVOSetMutation,
        using objects: Set<Element>,
        of object: Object,
        keyPath: KeyPath<Object, Set<Element>>
    ) {
        var removed: Set<Element>?
        var added: Set<Element>?
        // The members that change, from the set's value now (nobody needs them when nobody observes).
        if _hasObservers {
            let changes = mutation.changes(of: untracked { object[keyPath: keyPath] }, using: objects)
            removed = mutation == .union ? nil : changes.removed
            added = mutation == .union || mutation == .set ? changes.added : nil
        }
        let changesSomething = !(removed?.isEmpty ?? true) || !(added?.isEmpty ?? true)
        beginCollectionChange(
            of: object,
            keyPath: keyPath,
            signature: .setMutation(mutation, AnyHashable(objects)),
            kind: mutation.changeKind,
            indexes: nil,
            removed: removed,
            added: added,
            announces: changesSomething
        )
    }

    func setDidChange<Object: KeyValueObservable, Element: Hashable>(
        _ mutation: KVOSetMutation,
        using objects: Set<Element>,
        of object: Object,
        keyPath: KeyPath<Object, Set<Element>>
    ) {
        let signature = CollectionChangeSignature.setMutation(mutation, AnyHashable(objects))
        guard let change = popManualChange(of: object, keyPath: keyPath, signature: signature),
            change.collection?.isValid == true
        else { return }
        let added = change.collection?.added as? Set<Element>
        if _slowPath(Tracing.isOn.load(ordering: .relaxed)) { traceManualChange(of: object, keyPath: keyPath) }
        endCollectionChange(change, of: object, kind: mutation.changeKind, indexes: nil, inserted: added)
    }
}
