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
    /// What kind of change happened.
    public var kind: KVOChangeKind
    /// The value before the change, when asked for with `.old`.
    public var oldValue: Value?
    /// The value after the change, when asked for with `.new`.
    public var newValue: Value?
    /// The indexes of an array mutation; nil for settings and set mutations.
    public var indexes: IndexSet?
    /// True on the record delivered before a change (`.prior`).
    public var isPrior: Bool
    /// The key path that was observed and fired.
    public var keyPath: AnyKeyPath {
        get { _keyPathHolder.keyPath }
        set { _keyPathHolder = _KeyPathHolder(newValue) }
    }
    /// Holds `keyPath`. For records the library delivers it is the registration itself, so that a
    /// notification retains an object of that registration only, never a key path object that
    /// registrations on other threads share (a contended reference count on every change).
    @usableFromInline
    var _keyPathHolder: _KeyPathHolder

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

    /// A record whose key path is held by `holder` (a registration).
    @inlinable
    init(
        kind: KVOChangeKind = .setting,
        oldValue: Value? = nil,
        newValue: Value? = nil,
        indexes: IndexSet? = nil,
        isPrior: Bool = false,
        holder: _KeyPathHolder
    ) {
        self.kind = kind
        self.oldValue = oldValue
        self.newValue = newValue
        self.indexes = indexes
        self.isPrior = isPrior
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
            indexes: indexes,
            isPrior: isPrior,
            holder: _keyPathHolder
        )
    }
}
