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
        let old = boxedOld.flatMap { $0 as? Value }
        if isDirect {
            let new = untracked { read(object) }
            deliverDeferredSetting(object, old: old, new: new)
        } else {
            // Read again under tracking: what it depends on is brought up to date.
            deliverDeferredPrior(object, old: old)
            if let old {
                withUnsafePointer(to: old) {
                    reevaluate(object, old: ValueAddress($0), keeping: lastValue, oldIsKept: false)
                }
            } else {
                reevaluate(object, old: nil, keeping: lastValue, oldIsKept: false)
            }
        }
    }

    /// The prior record and the change record of a direct registration's deferred change (neither, with
    /// `.distinct`, when its value ends where it started).
    private func deliverDeferredSetting(_ object: Object, old: Value?, new: Value) {
        withUnsafePointer(to: new) { newPointer in
            let new = ValueAddress(newPointer)
            func deliverBoth(_ old: ValueAddress?) {
                if changesNothing(old: old, new: new, type: Value.self) { return }
                if options.contains(.prior) {
                    deliver {
                        callDirect(object: object, oldValue: old, newValue: nil, type: Value.self, isPrior: true)
                    }
                }
                deliver { callDirect(object: object, oldValue: old, newValue: new, type: Value.self, isPrior: false) }
            }
            guard let old else { return deliverBoth(nil) }
            withUnsafePointer(to: old) { deliverBoth(ValueAddress($0)) }
        }
    }

    /// The prior record of a re-read registration's deferred change, if asked for.
    private func deliverDeferredPrior(_ object: Object, old: Value?) {
        guard options.contains(.prior) else { return }
        guard let old else {
            return deliver { callDirect(object: object, oldValue: nil, newValue: nil, type: Value.self, isPrior: true) }
        }
        withUnsafePointer(to: old) { oldPointer in
            let old = ValueAddress(oldPointer)
            deliver { callDirect(object: object, oldValue: old, newValue: nil, type: Value.self, isPrior: true) }
        }
    }
}
