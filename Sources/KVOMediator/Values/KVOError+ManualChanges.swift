/// Errors of collection changes announced by hand (``KeyValueObservable/didChange(_:at:for:)`` and its
/// kin), reported to ``KeyValueObservable/handleKVOError(_:)``: each names the call, the type and the fix.
extension KVOError {
    /// A `didChange` (or `didChangeValue(for:)`) with no `willChange` of its key path pending on this
    /// thread; `pending` is the innermost announcement this thread still has pending on the object, if any.
    static func unmatchedDidChange(
        call: String,
        will: String,
        pending: String? = nil,
        keyPath: String,
        type: Any.Type
    ) -> KVOError {
        KVOError(.unmatchedDidChange, keyPath: keyPath, type: type) { typeName in
            "\(call) on \(typeName) has no matching \(will) on this thread, so nothing was announced"
                + (pending.map { " (what this thread has pending on it is \($0), still waiting for its didChange)" }
                    ?? "")
                + ". Call \(will) before changing the storage, on the same thread, or wrap the change in "
                + "withChange(…) { … }, which pairs them."
        }
    }

    /// A `didChange` that differs from the innermost pending `willChange` of its key path.
    static func mismatchedChange(call: String, pending: String, keyPath: String, type: Any.Type) -> KVOError {
        KVOError(.mismatchedChange, keyPath: keyPath, type: type) { typeName in
            "\(call) on \(typeName) does not match the innermost pending announcement of \(keyPath) on this thread, "
                + "\(pending), so nothing was announced for either. Pair each willChange with a didChange of the same "
                + "form, kind, indexes (or set mutation and objects) and key path, innermost first, or wrap the change "
                + "in withChange(…) { … }."
        }
    }

    /// Indexes an array does not have , or indexes for a setting.
    static func invalidIndexes(call: String, problem: String, keyPath: String, type: Any.Type) -> KVOError {
        KVOError(.invalidIndexes, keyPath: keyPath, type: type) { typeName in
            "\(call) on \(typeName): \(problem), so nothing was announced. The indexes of a removal or a replacement "
                + "are those of elements there before the change; those of an insertion or a replacement, positions "
                + "that hold the new elements after it. Announce a setting with willChangeValue(for:)/didChangeValue(for:)."
        }
    }
}
