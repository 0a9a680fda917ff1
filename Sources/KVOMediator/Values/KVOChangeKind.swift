/// How an observed value changed: Cocoa's `NSKeyValueChange`.
public enum KVOChangeKind: Sendable, Hashable {
    /// The value was set (or, for `.initial`, read). Every non-collection change is a setting.
    case setting
    /// Elements were inserted into an observed collection; `indexes` says where.
    case insertion
    /// Elements were removed from an observed collection; `indexes` says where they were.
    case removal
    /// Elements of an observed collection were replaced; `indexes` says which.
    case replacement
}
