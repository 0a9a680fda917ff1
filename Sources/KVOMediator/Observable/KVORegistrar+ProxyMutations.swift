import Foundation
import Synchronization

/// A collection proxy's mutation (`mutableArrayValue(for:)`, `mutableSetValue(for:)`), announced with its
/// kind and indexes: to the `@Observed` property's one registration inside its gate, entered under the
/// registrar's lock as a set's is; to several (also of custom storage) from the mutation's own elements when
/// each takes its kind; otherwise by capturing values before the mutation and reading them after it.
extension KVORegistrar {
    /// Applies a collection mutation to the storage behind `keyPath`, announcing it with its kind and indexes.
    ///
    /// Direct registrations of the collection get `kind`, `indexes` and the removed/inserted elements;
    /// registrations that re-read their key path (chains, computed properties) get a setting. With the
    /// storage of the `@Observed` property that `keyPath` is, the collection changes in place; otherwise
    /// through `keyPath` (get, apply, set).
    @usableFromInline
    func mutateCollection<Object: KeyValueObservable, Collection>(
        of object: Object,
        keyPath: ReferenceWritableKeyPath<Object, Collection>,
        storage: ObservedStorageField?,
        kind: KVOChangeKind,
        indexes: _KVOIndexes,
        removed: Collection?,
        inserted: Collection?,
        addresses: (removed: ValueAddress?, inserted: ValueAddress?)? = nil,
        apply: (inout Collection) -> Void
    ) {
        guard _hasObservers else {
            return applyCollectionMutation(of: object, keyPath, storage, announced: false, apply)
        }
        guard let storage else {
            return mutateReadCollection(
                of: object,
                keyPath,
                kind: kind,
                indexes: indexes,
                removed: removed,
                inserted: inserted,
                apply
            )
        }
        // The `@Observed` property itself: its one read, known from its storage.
        let field = storage.field
        guard Observed<Collection>.notifiesAutomatically(field: field, of: object) else {
            return applyCollectionMutation(of: object, keyPath, storage, announced: false, apply)
        }
        let slotKey = LeafWord.slot(self, field: field)
        // One registration taking the collection's kind, with the elements by address: in its gate, entered
        // under the lock as a set's is. Otherwise the list, found under the same taking of the lock; so also
        // when the mutation may run code of the user's (Observation's willSet and didSet, for a class that
        // bridges to it: a cancel from there must not wait for this entry) or this thread's transaction notes
        // the records. There the mutation runs between records that each enter the gate, and the list holds
        // each registration meanwhile, which a registration entered under the lock is not once it leaves.
        let observers: FieldObservers =
            if addresses == nil || Object._reportsToObservation || ThreadContext.isInTransaction {
                .listed(infos(for: .field(field)))
            } else {
                observers(ofCollectionAt: field, keyPath: keyPath, slotKey: slotKey)
            }
        switch observers {
        case .entered(let single, let passed):
            mutateInGate(
                of: object,
                keyPath,
                storage,
                single,
                passed: passed,
                kind: kind,
                indexes: indexes,
                addresses: addresses.unsafelyUnwrapped,
                apply
            )
        case .listed(let infos):
            mutateListed(
                of: object,
                keyPath,
                storage,
                to: infos,
                slotKey: slotKey,
                kind: kind,
                indexes: indexes,
                removed: removed,
                inserted: inserted,
                addresses: addresses,
                apply
            )
        }
    }

    /// A mutation of a collection that is not an `@Observed` property's (custom storage, say), announced to
    /// the registrations of what `keyPath` reads, found by evaluating it.
    @inline(never)
    private func mutateReadCollection<Object: KeyValueObservable, Collection>(
        of object: Object,
        _ keyPath: ReferenceWritableKeyPath<Object, Collection>,
        kind: KVOChangeKind,
        indexes: _KVOIndexes,
        removed: Collection?,
        inserted: Collection?,
        _ apply: (inout Collection) -> Void
    ) {
        let reads = ReadProbe.reads(of: keyPath, on: object)
        // A key path through other objects to their `@Observed` collection (`\.shelf.playlist.songs`) is set
        // back through, and the setter of the object that holds the collection announces that: this object's
        // own reads (its links) do not change, and an announcement from here too would reach the chain's
        // registrations twice. (Custom storage that also reads another object is announced from here.)
        if let last = reads.last, last.registrar !== self, case .field = last.slot, let wrapped = last.wrapped,
            type(of: wrapped).valueType == Collection.self
        {
            return applyCollectionMutation(of: object, keyPath, nil, announced: false, apply)
        }
        let accesses = reads.filter { $0.registrar === self }
        // An `@Observed(automaticallyNotifies: false)` collection is announced by its owner, as its sets
        // are (Cocoa's proxies do not announce when `automaticallyNotifiesObservers(forKey:)` is false).
        // (One read of a slot whose wrapped property is of this collection's type: its storage is an
        // `Observed<Collection>`, also when the proxy's key path is rooted at a subclass.)
        if accesses.count == 1, case .field(let offset) = accesses[0].slot,
            let wrapped = accesses[0].wrapped, type(of: wrapped).valueType == Collection.self,
            !Observed<Collection>.notifiesAutomatically(field: offset, of: object)
        {
            return applyCollectionMutation(of: object, keyPath, nil, announced: false, apply)
        }
        return announceCollectionMutation(
            of: object,
            keyPath,
            nil,
            to: SlotObservers(infos(readBy: accesses, keyPath: keyPath)),
            slotKey: collectionSlotKey(of: accesses, type: Collection.self),
            kind: kind,
            indexes: indexes,
            removed: removed,
            inserted: inserted,
            apply
        )
    }

    /// A mutation announced to `infos`, the registrations of what `keyPath` reads: those whose value is
    /// this collection (its property, also with custom storage, or a chain or string key path ending at it:
    /// `slotKey`) get its kind and indexes; the rest, and those that want whole values, re-read (see
    /// `takesCollectionKind`). When every one takes the kind, it is announced from the mutation's own
    /// elements, with no list of captured values.
    private func announceCollectionMutation<Object: KeyValueObservable, Collection>(
        of object: Object,
        _ keyPath: ReferenceWritableKeyPath<Object, Collection>,
        _ storage: ObservedStorageField?,
        to infos: SlotObservers,
        slotKey: LeafWord,
        kind: KVOChangeKind,
        indexes: _KVOIndexes,
        removed: Collection?,
        inserted: Collection?,
        _ apply: (inout Collection) -> Void
    ) {
        let indexSet = indexes.indexSet
        // (Each registration borrowed from `infos`, which holds them: no reference counting per registration.)
        if !infos.isEmpty, infos.allUnretained({ takesCollectionKind($0, keyPath: keyPath, slotKey: slotKey) }) {
            // (In a transaction each registration notes its value before the mutation, as for a prior record.)
            let beforeEach = ThreadContext.isInTransaction
            infos.forEachUnretained { info in
                info.with {
                    if $0.sendsPriorRecords || beforeEach {
                        $0.priorCollection(object: object, kind: kind, indexes: indexSet, oldElements: removed)
                    }
                }
            }
            applyCollectionMutation(of: object, keyPath, storage, announced: true, apply)
            infos.forEachUnretained { info in
                info.with {
                    $0.changeCollection(
                        object: object,
                        kind: kind,
                        indexes: indexSet,
                        oldElements: removed,
                        newElements: inserted
                    )
                }
            }
            return
        }
        let captured = announceBefore(to: infos) { info in
            guard takesCollectionKind(info, keyPath: keyPath, slotKey: slotKey) else { return false }
            info.priorCollection(object: object, kind: kind, indexes: indexSet, oldElements: removed)
            return true
        }
        applyCollectionMutation(of: object, keyPath, storage, announced: true, apply)
        announceAfter(to: infos, captured: captured) { info in
            info.changeCollection(
                object: object,
                kind: kind,
                indexes: indexSet,
                oldElements: removed,
                newElements: inserted
            )
        }
    }

    /// A mutation of the `@Observed` collection at `storage` (announced automatically) announced to `infos`,
    /// its registrations but one that took it in its gate (`mutateInGate`): from the elements by address (an
    /// array proxy's) when every registration takes its kind (see above), else as any collection's. Out of
    /// line: the common case is the one in the gate, which keeps its caller small.
    @inline(never)
    private func mutateListed<Object: KeyValueObservable, Collection>(
        of object: Object,
        _ keyPath: ReferenceWritableKeyPath<Object, Collection>,
        _ storage: ObservedStorageField,
        to infos: SlotObservers,
        slotKey: LeafWord,
        kind: KVOChangeKind,
        indexes: _KVOIndexes,
        removed: Collection?,
        inserted: Collection?,
        addresses: (removed: ValueAddress?, inserted: ValueAddress?)?,
        _ apply: (inout Collection) -> Void
    ) {
        // (Each registration borrowed from `infos`, which holds them: no reference counting per registration.)
        guard let addresses, !infos.isEmpty,
            infos.allUnretained({ takesCollectionKind($0, keyPath: keyPath, slotKey: slotKey) })
        else {
            return announceCollectionMutation(
                of: object,
                keyPath,
                storage,
                to: infos,
                slotKey: slotKey,
                kind: kind,
                indexes: indexes,
                removed: removed,
                inserted: inserted,
                apply
            )
        }
        // (In a transaction each registration notes its value before the mutation, as for a prior record.)
        let beforeEach = ThreadContext.isInTransaction
        let parts = _CollectionParts(
            kind: kind,
            indexes: indexes,
            old: addresses.removed,
            new: addresses.inserted,
            type: Collection.self
        )
        infos.forEachUnretained { info in
            info.with { if $0.sendsPriorRecords || beforeEach { $0.priorCollection(object: object, parts: parts) } }
        }
        applyCollectionMutation(of: object, keyPath, storage, announced: true, apply)
        infos.forEachUnretained { info in info.with { $0.changeCollection(object: object, parts: parts) } }
    }

    /// A mutation of the `@Observed` collection at `storage` announced to its one registration, `single`,
    /// which takes the collection's kind and was entered into its gate under the lock (with `passed`: see
    /// `observers(ofCollectionAt:keyPath:slotKey:)`): its records are made there, from the elements by
    /// address, with no copy of the list and no reference counting.
    @inline(__always)
    private func mutateInGate<Object: KeyValueObservable, Collection>(
        of object: Object,
        _ keyPath: ReferenceWritableKeyPath<Object, Collection>,
        _ storage: ObservedStorageField,
        _ single: Unretained<SlotObserver>,
        passed: Bool,
        kind: KVOChangeKind,
        indexes: _KVOIndexes,
        addresses: (removed: ValueAddress?, inserted: ValueAddress?),
        _ apply: (inout Collection) -> Void
    ) {
        var parts = _CollectionParts(
            kind: kind,
            indexes: indexes,
            old: addresses.removed,
            new: addresses.inserted,
            type: Collection.self
        )
        // (An array's mutation moves elements only, running no code of the user's: the proxy keeps those it
        // removes until it has ended. So it runs inside the gate.)
        single.with {
            $0.mutateCollectionDirect(object: object, parts: &parts, passed: passed) {
                storage.mutate(of: object, as: Collection.self, apply)
            }
        }
    }

    /// Writes a collection mutation: in place in `storage`, reported to Observation around it as the
    /// property's setter would; else through `keyPath`, whose setter this registrar does not announce
    /// when the mutation is `announced` as a whole.
    private func applyCollectionMutation<Object: KeyValueObservable, Collection>(
        of object: Object,
        _ keyPath: ReferenceWritableKeyPath<Object, Collection>,
        _ storage: ObservedStorageField?,
        announced: Bool,
        _ apply: (inout Collection) -> Void
    ) {
        if let storage {
            guard Object._reportsToObservation,
                Observed<Collection>.notifiesAutomatically(field: storage.field, of: object)
            else { return storage.mutate(of: object, as: Collection.self, apply) }
            let keyPath: () -> AnyKeyPath = { keyPath }
            return Object._withObservationMutation(
                of: object,
                keyPath: keyPath,
                field: storage.field,
                valueType: Collection.self
            ) { storage.mutate(of: object, as: Collection.self, apply) }
        }
        guard announced else { return apply(&object[keyPath: keyPath]) }
        let context = ThreadContext.current
        let outer = context.suppressedRegistrar
        context.suppressedRegistrar = ObjectIdentifier(self)
        ThreadModes.running.wrappingAdd(1, ordering: .relaxed)
        apply(&object[keyPath: keyPath])
        ThreadModes.running.wrappingSubtract(1, ordering: .relaxed)
        context.suppressedRegistrar = outer
    }
}
