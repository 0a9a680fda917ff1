/// What an observation delivers, with Cocoa KVO's meaning for each option.
///
/// ```swift
/// controller.observe(circle, keyPath: \.radius, options: [.initial, .old, .new]) { observer, circle, change in
///     print(change.oldValue as Any, change.newValue as Any)
/// }
/// ```
///
/// - `.new`: every change record carries `newValue` (never the prior one).
/// - `.old`: change records carry `oldValue` (never the initial one).
/// - `.initial`: one record is delivered synchronously inside `observe`, before it returns,
///   with `newValue` if `.new` is set and never an `oldValue`.
/// - `.prior`: each change is announced twice: first before it happens, with `isPrior == true`
///   and `oldValue` if `.old` is set, then after it as usual.
///
/// With neither `.new` nor `.old`, a record tells only that something changed.
public struct KVOOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt

    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Change records carry the new value.
    public static let new = KVOOptions(rawValue: 1)
    /// Change records carry the old value.
    public static let old = KVOOptions(rawValue: 2)
    /// A record is delivered inside `observe`, before it returns.
    public static let initial = KVOOptions(rawValue: 4)
    /// A record is delivered before each change as well as after it.
    public static let prior = KVOOptions(rawValue: 8)
}

extension KVOOptions: CustomStringConvertible {
    public var description: String {
        let names: [(KVOOptions, String)] = [
            (.new, ".new"), (.old, ".old"), (.initial, ".initial"), (.prior, ".prior"),
        ]
        return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
    }
}
