extension KeyValueObservable {
    /// Announces that the set at `keyPath` is about to change by `mutation` with `objects`; pair it with
    /// ``didChange(_:using:for:)``. Cocoa's `willChangeValue(forKey:withSetMutation:using:)`.
    ///
    /// Use it for a set with custom storage (whose getter calls ``accessValue(for:)``) or an
    /// `@Observed(automaticallyNotifies: false)` set. Observers get exactly the records
    /// ``mutableSetValue(for:)`` gives for the same mutation, computed here from the set's value before
    /// the change (see ``KVOSetMutation``): `.union` is an `.insertion` of the objects not yet members,
    /// `.minus` and `.intersect` a `.removal` of the members that go, `.set` a `.replacement` (old: the
    /// members that go, new: the objects that arrive). `indexes` is nil. A mutation that changes nothing
    /// is announced to nobody.
    ///
    /// ```swift
    /// func addTags(_ new: Set<String>) {
    ///     willChange(.union, using: new, for: \.tags)
    ///     storage.formUnion(new)
    ///     didChange(.union, using: new, for: \.tags)
    /// }
    /// ```
    ///
    /// Calls nest; each must be matched by a `didChange` with the same mutation, objects and key path on
    /// the same thread, or the `didChange` is reported to ``handleKVOError(_:)`` and announces nothing.
    ///
    /// - Parameters:
    ///   - mutation: How the set changes.
    ///   - objects: The objects of the mutation.
    ///   - keyPath: The set, as its getter reports it.
    public func willChange<Element: Hashable>(
        _ mutation: KVOSetMutation,
        using objects: Set<Element>,
        for keyPath: KeyPath<Self, Set<Element>>
    ) {
        if Self._reportsToObservation { kvoRegistrar.reportManualChange(.willSet, of: self, keyPath: keyPath) }
        kvoRegistrar.setWillChange(mutation, using: objects, of: self, keyPath: keyPath)
    }

    /// Announces that the set at `keyPath` has changed by `mutation` with `objects`; observers are called
    /// before it returns. Cocoa's `didChangeValue(forKey:withSetMutation:using:)`.
    ///
    /// It ends the innermost ``willChange(_:using:for:)`` of `keyPath` on this thread, whose mutation and
    /// objects it must repeat: the records carry the members found to change there.
    ///
    /// ```swift
    /// willChange(.set, using: ["a", "b"], for: \.tags)
    /// storage = ["a", "b"]
    /// didChange(.set, using: ["a", "b"], for: \.tags)
    /// ```
    ///
    /// With no matching `willChange` (``KVOError/Reason-swift.enum/unmatchedDidChange``) or a different one
    /// (``KVOError/Reason-swift.enum/mismatchedChange``), nothing is announced and the error goes to
    /// ``handleKVOError(_:)``.
    ///
    /// - Parameters:
    ///   - mutation: The mutation passed to `willChange`.
    ///   - objects: The objects passed to `willChange`.
    ///   - keyPath: The key path passed to `willChange`.
    public func didChange<Element: Hashable>(
        _ mutation: KVOSetMutation,
        using objects: Set<Element>,
        for keyPath: KeyPath<Self, Set<Element>>
    ) {
        kvoRegistrar.setDidChange(mutation, using: objects, of: self, keyPath: keyPath)
        if Self._reportsToObservation { kvoRegistrar.reportManualChange(.didSet, of: self, keyPath: keyPath) }
    }

    /// Runs `body` between ``willChange(_:using:for:)`` and ``didChange(_:using:for:)``, which always pair.
    ///
    /// ```swift
    /// withChange(.minus, using: ["draft"], of: \.tags) { storage.subtract(["draft"]) }
    /// ```
    ///
    /// - Parameters:
    ///   - mutation: How the set changes.
    ///   - objects: The objects of the mutation.
    ///   - keyPath: The set.
    ///   - body: Changes the set's storage as `mutation` says.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withChange<Element: Hashable, Result>(
        _ mutation: KVOSetMutation,
        using objects: Set<Element>,
        of keyPath: KeyPath<Self, Set<Element>>,
        _ body: () throws -> Result
    ) rethrows -> Result {
        willChange(mutation, using: objects, for: keyPath)
        defer { didChange(mutation, using: objects, for: keyPath) }
        return try body()
    }
}
