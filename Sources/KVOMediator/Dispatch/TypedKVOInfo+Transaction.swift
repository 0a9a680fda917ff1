/// A transaction's changes (``withKVOTransaction(_:)``): noted where each would be delivered, and
/// delivered once, when the transaction ends (`TransactionChanges`).
extension TypedKVOInfo {
    /// The value now, read untracked, boxed (nil when the object is gone): the old value of a change
    /// about to be made.
    func currentValueBoxed() -> Any? {
        guard let object = loadTypedObject() else { return nil }
        return untracked { read(object) }
    }

    /// `deliverDeferred(old:collection:)` (see `KVOInfo`).
    func deliverTransactionRecord(old boxedOld: Any?, collection: DeferredCollectionChange?) {
        guard let object = loadTypedObject() else { return }
        if let collection, !wantsWholeValues {
            // Its one change, a collection mutation, as it was made.
            collection.withParts { parts in
                if options.contains(.prior) {
                    let prior = parts.keeping(old: options.contains(.old), new: false)
                    deliver { callCollection(object: object, prior, isPrior: true) }
                }
                let change = parts.keeping(old: options.contains(.old), new: options.contains(.new))
                deliver { callCollection(object: object, change, isPrior: false) }
            }
            return
        }
        if isDirect {
            var new = untracked { read(object) }
            _withUnprotectedUnsafeMutablePointer(to: &new) { newPointer in
                let new = ValueAddress(UnsafePointer(newPointer))
                withOld(boxedOld) { deliverDeferredSetting(object, old: $0, new: new) }
            }
        } else {
            // Read again under tracking: what it depends on is brought up to date.
            withOld(boxedOld) { old in
                reevaluate(object, old: old, keeping: lastValue, oldIsKept: false, priorFirst: true)
            }
        }
    }

    /// Calls `body` with the address of the old value boxed in `boxed`, as a `Value` (nil: none, or not a
    /// `Value`). Opened, not cast: a cast to `Value` looks up generic metadata in this unspecialised code.
    private func withOld(_ boxed: Any?, _ body: (ValueAddress?) -> Void) {
        guard let boxed else { return body(nil) }
        func open<Old>(_ old: Old) {
            if Old.self == Value.self {
                _withValuePointer(to: old) { body(ValueAddress($0)) }
            } else if let old = old as? Value {
                _withValuePointer(to: old) { body(ValueAddress($0)) }
            } else {
                body(nil)
            }
        }
        _openExistential(boxed, do: open)
    }

    /// The prior record and the change record of a direct registration's deferred change (neither, with
    /// `.distinct`, when its value ends where it started).
    private func deliverDeferredSetting(_ object: Object, old: ValueAddress?, new: ValueAddress) {
        if changesNothing(old: old, new: new, type: Value.self) { return }
        if options.contains(.prior) {
            deliver { callDirect(object: object, oldValue: old, newValue: nil, type: Value.self, isPrior: true) }
        }
        deliver { callDirect(object: object, oldValue: old, newValue: new, type: Value.self, isPrior: false) }
    }
}
