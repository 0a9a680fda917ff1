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
/// - `.distinct`: a change that leaves the value as it was delivers nothing (neither its prior
///   record nor its change record). Values are compared whether or not records carry them: an object
///   reference by identity (even when its class is `Equatable`), any other `Equatable` value with `==`,
///   an optional level by level (two nils are the same), a value of an existential type (`Any`, as a
///   string key path's) by what it holds, with the same rules. A value that is none of these is never
///   the same, so each of its changes is delivered. Collection mutations (insertions, removals,
///   replacements through a proxy) are always delivered, unless delivery coalesces them into a
///   `.setting`; the `.initial` record too, and a weak referent's death. For a key path that is re-read
///   after a change (a computed property, a chain whose link changed, a change announced with
///   `willChangeValue(for:)` / `didChangeValue(for:)`), a `.prior` record goes out before the new value
///   is known, so with `.prior` its change record follows even when the value is the same.
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
    /// A change that leaves the value as it was (equal by `==`, the same object) is not delivered.
    ///
    /// ```swift
    /// controller.observe(thermostat, keyPath: \.target, options: [.old, .new, .distinct]) { _, _, change in
    ///     print("target", change.oldValue!, "→", change.newValue!)   // never 21 → 21
    /// }
    /// ```
    public static let distinct = KVOOptions(rawValue: 16)
}

extension KVOOptions: CustomStringConvertible {
    public var description: String {
        let names: [(KVOOptions, String)] = [
            (.new, ".new"), (.old, ".old"), (.initial, ".initial"), (.prior, ".prior"), (.distinct, ".distinct"),
        ]
        return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
    }
}
