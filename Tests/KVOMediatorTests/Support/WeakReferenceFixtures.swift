import Foundation
import KVOMediator

/// The referent of weak properties: an observable object that `Console`s hold weakly.
///
/// `@unchecked Sendable` because thread tests release it on another thread; no property of it is
/// written from two threads at once.
final class Agent: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    let name: String
    @Observed var status = "idle"

    init(_ name: String, status: String = "idle") {
        self.name = name
        self.status = status
    }
}

/// A holder of two weak, observable properties.
final class Console: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @ObservedWeak var agent: Agent?
    @ObservedWeak var backup: Agent?
    @Observed var title = "console"

    init(agent: Agent? = nil) {
        self.agent = agent
    }
}

/// A record of a weak property, summarised at once as text, so that keeping it keeps no referent
/// alive: `"setting nil→a1"`, `"setting a1→- prior"` (`-`: not asked for; `nil`: asked for, nil).
func summary(_ change: KVOChange<Agent?>) -> String {
    "\(change.kind) \(name(change.oldValue))→\(name(change.newValue))\(change.isPrior ? " prior" : "")"
}

/// A record of a chain through a weak property (`\.agent?.status`), summarised as text.
func summary(_ change: KVOChange<String?>) -> String {
    "\(change.kind) \(name(change.oldValue))→\(name(change.newValue))\(change.isPrior ? " prior" : "")"
}

/// A record of a string key path (`"agent"`, `"agent.status"`), whose values are flattened.
func summary(_ change: KVOChange<Any>) -> String {
    func text(_ value: Any?) -> String {
        switch value {
        case .none: "-"
        case .some(let agent as Agent): agent.name
        case .some(let other): "\(other)"
        }
    }
    return "\(change.kind) \(text(change.oldValue))→\(text(change.newValue))\(change.isPrior ? " prior" : "")"
}

private func name(_ value: Agent??) -> String {
    switch value {
    case .none: "-"
    case .some(.none): "nil"
    case .some(.some(let agent)): agent.name
    }
}

private func name(_ value: String??) -> String {
    switch value {
    case .none: "-"
    case .some(.none): "nil"
    case .some(.some(let text)): text
    }
}

/// Lines of text appended from any thread.
final class TextLog: @unchecked Sendable {  // `lines` is guarded by `lock`
    private let lock = NSLock()
    private var lines: [String] = []

    var entries: [String] {
        lock.withLock { lines }
    }

    func append(_ line: String) {
        lock.withLock { lines.append(line) }
    }
}

/// Hands one strong reference to another thread, which drops it: the last one, so the object
/// deinitialises there.
final class Baton<Object: AnyObject>: @unchecked Sendable {  // taken once, by the one thread that drops it
    private var object: Object?

    init(_ object: Object) {
        self.object = object
    }

    func drop() {
        object = nil
    }
}

/// A referent that changes its own observable property as it deinitialises, when the weak properties
/// holding it already read nil.
final class FarewellAgent: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var status = "idle"
    @Observed var log: [String] = []

    deinit {
        status = "gone"
        mutableArrayValue(for: \.log).append("bye")
    }
}

/// Holds a ``FarewellAgent`` weakly.
final class FarewellConsole: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @ObservedWeak var agent: FarewellAgent?
}
