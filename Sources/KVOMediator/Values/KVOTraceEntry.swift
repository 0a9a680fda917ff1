/// One change as ``KVOTrace`` reports it: which property of which object changed, from what to what, and
/// the registrations it runs.
///
/// ```
/// KVOTrace: <Profile: 0x6000…>.name: "Ada" → "Grace" (2 registrations)
///   name: ProfileView, made at App/ProfileView.swift:12 (block, on the changing thread)
///   fullName: a token made at App/Badge.swift:30 (token, on the changing thread)
/// ```
public struct KVOTraceEntry: Sendable, CustomStringConvertible {
    /// One registration the change runs.
    public struct Registration: Sendable, CustomStringConvertible {
        /// The key path it observes, as records name it (``KVOChange/keyPathName``).
        public let keyPath: String
        /// The type of the observer a controller calls (nil for tokens and streams).
        public let observerType: String?
        /// Where it was made: the `observe` call's `#fileID:#line` (nil when unknown).
        public let madeAt: String?
        /// Its form and where its callbacks run (`"block, on the changing thread"`, `"block, on a queue"`).
        public let delivery: String?

        public var description: String {
            let who = observerType.map { "\($0), made" } ?? "made"
            let place = madeAt.map { " at \($0)" } ?? " (where unknown)"
            return "\(keyPath): \(who)\(place)" + (delivery.map { " (\($0))" } ?? "")
        }
    }

    /// The object, as `<Type: 0x…>`.
    public let object: String
    /// The property that changed, by name.
    public let keyPath: String
    /// The value before the change, described; nil where the library does not know it (a change announced
    /// by hand).
    public let oldValue: String?
    /// The value after the change, described.
    public let newValue: String?
    /// The registrations that depend on the property, in the order they were made: each is told of the
    /// change (re-reading its key path first, if it is a computed property or a chain through it).
    public let registrations: [Registration]

    public var description: String {
        let values =
            oldValue.map { ": \($0) → \(newValue ?? "?")" } ?? (newValue.map { ": announced by hand, now \($0)" } ?? "")
        let count = registrations.count == 1 ? "1 registration" : "\(registrations.count) registrations"
        return (["KVOTrace: \(object).\(keyPath)\(values) (\(count))"] + registrations.map { "  \($0)" })
            .joined(separator: "\n")
    }
}
