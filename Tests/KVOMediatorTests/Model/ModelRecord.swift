import Foundation
import KVOMediator

/// A value as the reference model sees it: every key of the world's objects has one of these.
enum ModelValue: Hashable, CustomStringConvertible {
    /// A nil: a broken chain.
    case null
    case int(Int)
    case text(String)
    case list([Int])
    case bag(Set<Int>)

    /// The model value of a record's `Any` (untyped forms: `keyPaths:`, delegate, string key paths),
    /// looking through optionals; nil for a type the world does not have.
    init?(any value: Any) {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else {
                self = .null
                return
            }
            self.init(any: wrapped)
            return
        }
        switch value {
        case let value as Int: self = .int(value)
        case let value as String: self = .text(value)
        case let value as [Int]: self = .list(value)
        case let value as Set<Int>: self = .bag(value)
        default: return nil
        }
    }

    var description: String {
        switch self {
        case .null: "nil"
        case .int(let value): "\(value)"
        case .text(let value): "\"\(value)\""
        case .list(let value): "\(value)"
        case .bag(let value): "{\(value.sorted().map(String.init).joined(separator: ", "))}"
        }
    }
}

/// A value type of the world's keys, convertible to the model's.
protocol ModelValueConvertible {
    var modelValue: ModelValue { get }
}

extension Int: ModelValueConvertible {
    var modelValue: ModelValue { .int(self) }
}

extension String: ModelValueConvertible {
    var modelValue: ModelValue { .text(self) }
}

extension Array: ModelValueConvertible where Element == Int {
    var modelValue: ModelValue { .list(self) }
}

extension Set: ModelValueConvertible where Element == Int {
    var modelValue: ModelValue { .bag(self) }
}

extension Optional: ModelValueConvertible where Wrapped: ModelValueConvertible {
    var modelValue: ModelValue { self?.modelValue ?? .null }
}

/// One change record as the model states it: what a registration must receive, field by field.
struct ModelRecord: Hashable, CustomStringConvertible {
    var kind: KVOChangeKind = .setting
    var old: ModelValue?
    var new: ModelValue?
    var indexes: IndexSet?
    var isPrior = false

    init(
        kind: KVOChangeKind = .setting,
        old: ModelValue? = nil,
        new: ModelValue? = nil,
        indexes: IndexSet? = nil,
        isPrior: Bool = false
    ) {
        self.kind = kind
        self.old = old
        self.new = new
        self.indexes = indexes
        self.isPrior = isPrior
    }

    /// A typed record of the library.
    init<Value: ModelValueConvertible>(_ change: KVOChange<Value>) {
        self.init(
            kind: change.kind,
            old: change.oldValue.map(\.modelValue),
            new: change.newValue.map(\.modelValue),
            indexes: change.indexes,
            isPrior: change.isPrior
        )
    }

    /// A record of the values of a set's elements, which come in no particular order: sorted, as the model
    /// states them.
    init(sortingValuesOf change: KVOChange<[Int]>) {
        self.init(
            kind: change.kind,
            old: change.oldValue.map { .list($0.sorted()) },
            new: change.newValue.map { .list($0.sorted()) },
            indexes: change.indexes,
            isPrior: change.isPrior
        )
    }

    /// An untyped record of the library; a value of a type the world does not have reads as text, and
    /// so does a setting's value not of `valueType` when given (a partial key path's setting holds its key
    /// path's value: `Int?` for `\.a?.b?.value`, whichever link or leaf changed; a collection mutation's
    /// values are the elements it inserted or removed).
    init(untyped change: KVOChange<Any>, of valueType: Any.Type? = nil) {
        func convert(_ value: Any) -> ModelValue {
            if let valueType, change.kind == .setting, type(of: value) != valueType {
                return .text("<a \(type(of: value)), not the key path's \(valueType)>")
            }
            return ModelValue(any: value) ?? .text("<unexpected \(type(of: value))>")
        }
        self.init(
            kind: change.kind,
            old: change.oldValue.map(convert),
            new: change.newValue.map(convert),
            indexes: change.indexes,
            isPrior: change.isPrior
        )
    }

    var description: String {
        var parts = ["\(kind)"]
        if let old { parts.append("old: \(old)") }
        if let new { parts.append("new: \(new)") }
        if let indexes { parts.append("indexes: \(Array(indexes))") }
        if isPrior { parts.append("prior") }
        return "(" + parts.joined(separator: ", ") + ")"
    }
}
