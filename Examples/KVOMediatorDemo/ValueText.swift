import Foundation
import KVOMediator

/// How the feed writes observed values: short, and the same in every run (never an address).
enum ValueText {
    /// `0.425`, `downloading`, `report.pdf`, `nil`, `report.pdf, notes.txt`.
    static func of(_ value: Any?) -> String {
        guard let value = flattened(value) else { return "nil" }
        switch value {
        case let number as Double:
            return String(format: "%.3f", number)
        case let state as DownloadState:
            return state.rawValue
        case let download as Download:
            return download.name  // never changes, so it may be read on any thread
        case let downloads as [Download]:
            return downloads.map(\.name).joined(separator: ", ")
        default:
            return String(describing: value)
        }
    }

    /// The detail of a change record: old and new for a setting, elements and indexes for an array mutation.
    static func detail<Value>(of change: KVOChange<Value>) -> FeedEvent.Detail {
        guard change.kind != .setting else {
            return .setting(old: change.oldValue.map(of) ?? "-", new: change.newValue.map(of) ?? "-")
        }
        let elements = change.kind == .removal ? change.oldValue : change.newValue
        let indexes = change.indexes.map { "[" + $0.map(String.init).joined(separator: ",") + "]" } ?? "[]"
        return .collection(change.kind, elements: elements.map(of) ?? "", indexes: indexes)
    }

    /// The value inside any number of optionals, or nil.
    private static func flattened(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if let optional = value as? any OptionalValue { return flattened(optional.wrappedValue) }
        return value
    }
}

/// An optional seen through `Any`: the string key path's values are `Any` holding an optional.
private protocol OptionalValue {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrappedValue: Any? { self.map { $0 } }
}
