import Foundation

extension KeyValueObservable {
    /// Announces that elements of the array at `keyPath` are about to be inserted, removed or replaced
    /// at `indexes`; pair it with ``didChange(_:at:for:)``. Cocoa's `willChange(_:valuesAt:forKey:)`.
    ///
    /// Use it for an array with custom storage (whose getter calls ``accessValue(for:)``) or an
    /// `@Observed(automaticallyNotifies: false)` array, changed in place. Observers get exactly the
    /// records ``mutableArrayValue(for:)`` gives for the same mutation: every registration whose value is
    /// the array (typed, string, a chain ending at an `@Observed` array, a token) gets `kind`, `indexes`,
    /// the removed or replaced elements (`oldValue`, read here, before the change) and the inserted or
    /// new ones (`newValue`, read by `didChange`), each only when its options ask, and a prior record
    /// here with `.prior`; values computed from the array, and value streams, get a `.setting`.
    ///
    /// ```swift
    /// func insertTrack(_ track: Track, at index: Int) {
    ///     willChange(.insertion, at: [index], for: \.tracks)
    ///     storage.insert(track, at: index)
    ///     didChange(.insertion, at: [index], for: \.tracks)
    /// }
    /// ```
    ///
    /// The indexes are Cocoa's: for a removal or a replacement, those of the elements before the change;
    /// for an insertion, the positions the new elements have after it. Empty indexes announce nothing.
    /// Indexes out of range, or `.setting` (announce a setting with ``willChangeValue(for:)``), are
    /// reported to ``handleKVOError(_:)`` and announce nothing; so are a `didChange` with no matching
    /// `willChange` and one that differs from it. Calls nest; each must be matched by a `didChange` with
    /// the same kind, indexes and key path, on the same thread. Unlike ``willChangeValue(for:)``, it is
    /// kept for that check even with no observer (a thread-local entry and a read of the array).
    ///
    /// - Parameters:
    ///   - kind: `.insertion`, `.removal` or `.replacement`.
    ///   - indexes: Where the elements change.
    ///   - keyPath: The array, as its getter reports it.
    public func willChange<Element>(_ kind: KVOChangeKind, at indexes: IndexSet, for keyPath: KeyPath<Self, [Element]>)
    {
        if Self._reportsToObservation { kvoRegistrar.reportManualChange(.willSet, of: self, keyPath: keyPath) }
        kvoRegistrar.arrayWillChange(kind, at: indexes, of: self, keyPath: keyPath)
    }

    /// Announces that elements of the array at `keyPath` have been inserted, removed or replaced at
    /// `indexes`; observers are called before it returns. Cocoa's `didChange(_:valuesAt:forKey:)`.
    ///
    /// It ends the innermost ``willChange(_:at:for:)`` of `keyPath` on this thread, which must have the
    /// same kind and indexes. The inserted and new elements are read here, at `indexes`.
    ///
    /// ```swift
    /// willChange(.removal, at: [0, 2], for: \.tracks)
    /// storage.remove(atOffsets: [0, 2])
    /// didChange(.removal, at: [0, 2], for: \.tracks)
    /// ```
    ///
    /// Misuse announces nothing and is reported to ``handleKVOError(_:)`` with a ``KVOError`` naming the
    /// call, the type and the fix: no matching `willChange` (``KVOError/Reason-swift.enum/unmatchedDidChange``), a
    /// different kind or indexes, or a pending ``willChangeValue(for:)`` of the key path inside it
    /// (``KVOError/Reason-swift.enum/mismatchedChange``; the `willChange` is ended too), indexes the array
    /// does not have after an insertion or a replacement (``KVOError/Reason-swift.enum/invalidIndexes``).
    ///
    /// - Parameters:
    ///   - kind: The kind passed to `willChange`.
    ///   - indexes: The indexes passed to `willChange`.
    ///   - keyPath: The key path passed to `willChange`.
    public func didChange<Element>(_ kind: KVOChangeKind, at indexes: IndexSet, for keyPath: KeyPath<Self, [Element]>) {
        kvoRegistrar.arrayDidChange(kind, at: indexes, of: self, keyPath: keyPath)
        if Self._reportsToObservation { kvoRegistrar.reportManualChange(.didSet, of: self, keyPath: keyPath) }
    }

    /// Runs `mutation` between ``willChange(_:at:for:)`` and ``didChange(_:at:for:)``, which always pair.
    ///
    /// ```swift
    /// withChange(.replacement, at: [1], of: \.tracks) { storage[1] = remastered }
    /// ```
    ///
    /// If `mutation` throws, `didChange` still runs and announces what the array then holds at `indexes`.
    ///
    /// - Parameters:
    ///   - kind: `.insertion`, `.removal` or `.replacement`.
    ///   - indexes: Where the elements change (see ``willChange(_:at:for:)``).
    ///   - keyPath: The array.
    ///   - mutation: Changes the array's storage.
    /// - Returns: What `mutation` returns.
    /// - Throws: What `mutation` throws.
    public func withChange<Element, Result>(
        _ kind: KVOChangeKind,
        at indexes: IndexSet,
        of keyPath: KeyPath<Self, [Element]>,
        _ mutation: () throws -> Result
    ) rethrows -> Result {
        willChange(kind, at: indexes, for: keyPath)
        defer { didChange(kind, at: indexes, for: keyPath) }
        return try mutation()
    }
}
