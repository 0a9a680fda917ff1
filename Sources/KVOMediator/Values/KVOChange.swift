import Foundation

/// One change record, delivered to an observer.
///
/// Which fields are set follows Cocoa KVO exactly:
/// - `oldValue` is set only with ``KVOOptions/old``, and never on the `.initial` record;
/// - `newValue` is set only with ``KVOOptions/new``, and never on a prior record;
/// - `isPrior` is true only on the record sent before a change (``KVOOptions/prior``);
/// - `indexes` is set only for array mutations (`.insertion`, `.removal`, `.replacement`);
/// - `keyPath` is always the key path that was observed, for every callback style.
///
/// ```swift
/// controller.observe(person, keyPath: \.name, options: [.old, .new]) { _, _, change in
///     print("\(change.oldValue ?? "-") → \(change.newValue ?? "-")")
/// }
/// ```
public struct KVOChange<Value> {
    /// Holds `keyPath`: never nil, but while a delivery builds the record (`_lending(_:to:_:)`). For
    /// records the library delivers it is the registration itself, lent with no retain for the length of
    /// the callback, so that a notification counts no reference of it, and never one of a key path object
    /// that registrations on other threads share; a record the callback keeps retains it as a copy does.
    ///
    /// It must stay the first stored property: the lending writes the registration's reference at the
    /// record's address (`KVOChangeLayoutTests` checks it for values of several layouts).
    @usableFromInline
    var _keyPathHolder: _KeyPathHolder?
    /// What kind of change happened.
    public var kind: KVOChangeKind
    // (Spelt `Optional<Value>`: a `Value?` variable starts as nil, so an initialiser's store into it was
    // an assignment, which for an `Any` value ran the optional's value witnesses; these are initialised.)
    // swift-format-ignore: UseShorthandTypeNames
    /// The value before the change, when asked for with `.old`.
    public var oldValue: Optional<Value>
    // swift-format-ignore: UseShorthandTypeNames
    /// The value after the change, when asked for with `.new`.
    public var newValue: Optional<Value>
    /// The indexes of an array mutation; nil for settings and set mutations.
    public var indexes: IndexSet? {
        get { _indexes.indexSet }
        set { _indexes = _KVOIndexes(newValue) }
    }
    /// The indexes (see ``_KVOIndexes``): an `IndexSet`, or one index kept in `_flags` until they are read.
    @usableFromInline
    var _indexSet: IndexSet?
    /// Bit 0: `isPrior`; the bits above: the one index plus one (0: none). One word, where `isPrior` had
    /// its padding: a record a word larger was destroyed through a value witness on every delivery (the
    /// measurements are in the commit that made it so).
    @usableFromInline
    var _flags: Int

    @inlinable
    var _indexes: _KVOIndexes {
        get { _KVOIndexes(set: _indexSet, single: (_flags >> 1) - 1) }
        set {
            _indexSet = newValue.set
            _flags = (newValue.single + 1) << 1 | (_flags & 1)
        }
    }
    /// True on the record delivered before a change (`.prior`).
    public var isPrior: Bool {
        get { _flags & 1 != 0 }
        set { _flags = newValue ? _flags | 1 : _flags & ~1 }
    }
    /// The key path that was observed and fired.
    public var keyPath: AnyKeyPath {
        get { _keyPathHolder.unsafelyUnwrapped.keyPath }
        set { _keyPathHolder = _KeyPathHolder(newValue) }
    }
    /// Creates a change record.
    @inlinable
    public init(
        kind: KVOChangeKind = .setting,
        oldValue: Value? = nil,
        newValue: Value? = nil,
        indexes: IndexSet? = nil,
        isPrior: Bool = false,
        keyPath: AnyKeyPath
    ) {
        self.init(
            kind: kind,
            oldValue: oldValue,
            newValue: newValue,
            indexes: indexes,
            isPrior: isPrior,
            holder: _KeyPathHolder(keyPath)
        )
    }

    /// A record whose key path is held by `holder` (a registration; nil only for a record a delivery lends
    /// its registration to, `_lending(_:to:_:)`).
    @inlinable
    init(
        kind: KVOChangeKind = .setting,
        oldValue: Value? = nil,
        newValue: Value? = nil,
        indexes: IndexSet? = nil,
        isPrior: Bool = false,
        holder: _KeyPathHolder?
    ) {
        self.init(
            kind: kind,
            oldValue: oldValue,
            newValue: newValue,
            indexes: _KVOIndexes(indexes),
            isPrior: isPrior,
            holder: holder
        )
    }

    /// A setting's record: its index set stored as the literal nil. (Through the init that takes
    /// `_KVOIndexes`, the optimiser no longer sees that there is no `IndexSet` to destroy after each
    /// callback, and every notification pays for it.)
    @inlinable
    init(settingFrom oldValue: Value?, to newValue: Value?, isPrior: Bool, holder: _KeyPathHolder?) {
        self.kind = .setting
        self.oldValue = oldValue
        self.newValue = newValue
        self._indexSet = nil
        self._flags = isPrior ? 1 : 0
        self._keyPathHolder = holder
    }

    /// A record with its indexes as a mutation gave them.
    @inlinable
    init(
        kind: KVOChangeKind,
        oldValue: Value?,
        newValue: Value?,
        indexes: _KVOIndexes,
        isPrior: Bool,
        holder: _KeyPathHolder?
    ) {
        self.kind = kind
        self.oldValue = oldValue
        self.newValue = newValue
        self._indexSet = indexes.set
        self._flags = (indexes.single + 1) << 1 | (isPrior ? 1 : 0)
        self._keyPathHolder = holder
    }
}

// Key path objects are immutable once formed; the only non-Sendable stored property is `keyPath`.
extension KVOChange: @unchecked Sendable where Value: Sendable {}

extension KVOChange: Equatable where Value: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.kind == rhs.kind && lhs.oldValue == rhs.oldValue && lhs.newValue == rhs.newValue
            && lhs.indexes == rhs.indexes && lhs.isPrior == rhs.isPrior
            && (lhs._keyPathHolder === rhs._keyPathHolder || lhs.keyPath == rhs.keyPath)
    }
}

extension KVOChange {
    /// The same record with its values converted to `Any`, as the untyped callbacks receive it.
    var erased: KVOChange<Any> {
        KVOChange<Any>(
            kind: kind,
            oldValue: oldValue.map { $0 as Any },
            newValue: newValue.map { $0 as Any },
            indexes: _indexes,
            isPrior: isPrior,
            holder: _keyPathHolder
        )
    }
}
