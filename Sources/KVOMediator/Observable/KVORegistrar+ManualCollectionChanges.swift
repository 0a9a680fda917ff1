import Foundation

/// Collection changes announced by hand (``KeyValueObservable/willChange(_:at:for:)``,
/// ``KeyValueObservable/willChange(_:using:for:)`` and their `didChange`s): the records the collection
/// proxies give for the same mutation, to the same registrations. A `willChange` is kept on its thread,
/// even with no observer, so that its `didChange` is checked against it; misuse is reported to the
/// object (``KeyValueObservable/handleKVOError(_:)``) and announces nothing.
extension KVORegistrar {
    /// Whether `info`'s value is the collection at `keyPath`, so that a change of it carries its kind,
    /// indexes and elements: the property itself (also with custom storage, or with declared
    /// dependencies), or a chain or string key path ending at it (`slotKey`, ``collectionSlotKey(of:type:)``).
    /// A registration that wants whole values (a value stream) re-reads instead.
    @inline(__always)
    func takesCollectionKind(_ info: SlotObserver, keyPath: AnyKeyPath, slotKey: LeafWord) -> Bool {
        guard !info.wantsWholeValues else { return false }
        // (A string key path of one property is direct too; its key path is its subscript's.)
        if info.isDirect, info.readerKind != .flattening { return sameKeyPath(info.keyPath, keyPath) }
        return info.observesValue(ofSlot: slotKey) || sameKeyPath(info.keyPath, keyPath)
    }

    /// The slot (``LeafWord/slot(_:field:)``) of the collection `accesses` read, when they are one
    /// read of an `@Observed` property of the collection's type; ``LeafWord/none`` otherwise (custom
    /// storage, say).
    func collectionSlotKey<Collection>(of accesses: [Access], type: Collection.Type) -> LeafWord {
        guard accesses.count == 1, case .field(let field) = accesses[0].slot, let wrapped = accesses[0].wrapped,
            Swift.type(of: wrapped).valueType == Collection.self
        else { return .none }
        return .slot(self, field: field)
    }

    /// Before a collection change announced by hand: prior records with the kind, indexes and removed
    /// elements to registrations of the collection, old values captured for the rest; then the change
    /// is kept on this thread for its `didChange`. Nobody is told unless `announces` and someone observes;
    /// a `willChange` found misused (`isValid` false) is kept so that its `didChange` ends it silently.
    func beginCollectionChange<Object: KeyValueObservable, Collection>(
        of object: Object,
        keyPath: KeyPath<Object, Collection>,
        signature: CollectionChangeSignature,
        kind: KVOChangeKind,
        indexes: IndexSet?,
        removed: Collection?,
        added: Collection?,
        announces: Bool,
        isValid: Bool = true
    ) {
        var infos: [SlotObserver] = []
        var captured: [CapturedValue?] = []
        if announces, _hasObservers, !isSuppressedOnThisThread {
            let accesses = accesses(readBy: keyPath, on: object)
            infos = self.infos(readBy: accesses, keyPath: keyPath)
            let slotKey = collectionSlotKey(of: accesses, type: Collection.self)
            captured = announceBefore(to: infos) { info in
                guard takesCollectionKind(info, keyPath: keyPath, slotKey: slotKey) else { return false }
                info.priorCollection(object: object, kind: kind, indexes: indexes, oldElements: removed)
                return true
            }
        }
        let pending = PendingCollectionChange(
            signature: signature,
            removed: infos.isEmpty ? nil : removed.map { $0 as Any },
            added: infos.isEmpty ? nil : added.map { $0 as Any },
            isValid: isValid
        )
        ThreadContext.current.pendingManualChanges.append(
            ManualChange(registrar: self, keyPath: keyPath, infos: infos, captured: captured, collection: pending)
        )
    }

    /// After a collection change announced by hand: the records with the kind, indexes, removed and
    /// `inserted` elements to registrations of the collection, re-read values to the rest.
    func endCollectionChange<Object: KeyValueObservable, Collection>(
        _ change: ManualChange,
        of object: Object,
        kind: KVOChangeKind,
        indexes: IndexSet?,
        inserted: Collection?
    ) {
        let removed = change.collection?.removed as? Collection
        announceAfter(to: change.infos, captured: change.captured) { info in
            info.changeCollection(
                object: object,
                kind: kind,
                indexes: indexes,
                oldElements: removed,
                newElements: inserted
            )
        }
    }

    /// Takes the innermost change of `keyPath` this thread announced with a `willChange` and has not
    /// ended. Reports a `didChange` with no such change and one that does not match it; either way
    /// returns nil and nothing is announced. The plain form (`signature` nil) takes only a plain
    /// `willChangeValue(for:)`, so that a custom setter's own pair may run inside an indexed one.
    func popManualChange<Object: KeyValueObservable>(
        of object: Object,
        keyPath: AnyKeyPath,
        signature: CollectionChangeSignature?
    ) -> ManualChange? {
        guard let context = ThreadContext.currentIfPresent,
            let index = context.pendingManualChanges.lastIndex(where: {
                $0.registrar === self && (signature != nil || $0.collection == nil) && sameKeyPath($0.keyPath, keyPath)
            })
        else {
            let name = displayName(of: keyPath, on: object)
            let innermost = ThreadContext.currentIfPresent?.pendingManualChanges.last { $0.registrar === self }
            object.handleKVOError(
                .unmatchedDidChange(
                    call: signature?.call("didChange", keyPath: name) ?? "didChangeValue(for: \(name))",
                    will: signature?.call("willChange", keyPath: name) ?? "willChangeValue(for: \(name))",
                    pending: innermost.map { $0.call("willChange", on: object) },
                    keyPath: name,
                    type: Object.self
                )
            )
            return nil
        }
        let change = context.pendingManualChanges.remove(at: index)
        let pending = change.collection?.signature
        guard pending == signature else {
            let name = displayName(of: keyPath, on: object)
            func call(_ signature: CollectionChangeSignature?, _ verb: String) -> String {
                signature?.call(verb + "Change", keyPath: name) ?? "\(verb)ChangeValue(for: \(name))"
            }
            object.handleKVOError(
                .mismatchedChange(
                    call: call(signature, "did"),
                    pending: call(pending, "will"),
                    keyPath: name,
                    type: Object.self
                )
            )
            return nil
        }
        return change
    }

    /// The key path as messages name it: the type's own name for it, its chain of `@Observed`
    /// properties, or as printed.
    func displayName<Object: KeyValueObservable>(of keyPath: AnyKeyPath, on object: Object) -> String {
        if let declared = Object.keyPathName(for: keyPath) { return declared }
        if let partial = keyPath as? PartialKeyPath<Object>, let name = namePath(of: partial, on: object) {
            return name
        }
        return String(describing: keyPath)
    }
}
