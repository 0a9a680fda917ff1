/// A manual change announced by `willChangeValue(for:)`, kept until the matching `didChangeValue(for:)`.
struct ManualChange {
    let registrar: KVORegistrar
    let keyPath: AnyKeyPath
    /// The registrations told before the change, and what each captured.
    let infos: [SlotObserver]
    let captured: [CapturedValue?]
    /// What a collection change announced by hand says (``PendingCollectionChange``); nil for a value change.
    var collection: PendingCollectionChange? = nil

    /// The call that announced it, as written, for messages: `willChangeValue(for: title)`.
    func call<Object: KeyValueObservable>(_ name: String, on object: Object) -> String {
        let keyPathName = registrar.displayName(of: keyPath, on: object)
        return collection?.signature.call(name, keyPath: keyPathName) ?? "\(name)Value(for: \(keyPathName))"
    }
}

/// This thread's manual changes waiting for their did-change, innermost last: kept in its
/// ``ThreadContext`` (made at the first).
final class PendingManualChanges {
    var changes: [ManualChange] = []
}

extension ThreadContext {
    /// The manual will-change announcements waiting for their did-change on this thread, innermost last.
    var pendingManualChanges: [ManualChange] {
        get {
            manualChanges.map { KnownClass.cast($0, to: PendingManualChanges.self).changes } ?? []
        }
        _modify {
            let pending: PendingManualChanges
            if let manualChanges {
                pending = KnownClass.cast(manualChanges, to: PendingManualChanges.self)
            } else {
                pending = PendingManualChanges()
                manualChanges = pending
            }
            yield &pending.changes
        }
    }

    /// Whether a change made now on this thread may be nested in another: the thread is running a
    /// callback, or has a `willChange` waiting for its `didChange`.
    static var mayBeNestedInAChange: Bool {
        currentSays { context in
            if context.deliveryDepth != 0 { return true }
            guard let pending = context.manualChanges else { return false }
            return !KnownClass.cast(pending, to: PendingManualChanges.self).changes.isEmpty
        }
    }
}
