import Foundation
import KVOMediator

/// What a callback knows about the registration it belongs to, to check what it is given.
struct DeliveryCheck: Sendable {
    let registration: Int
    let object: ObjectIdentifier
    /// The observer's number, for a controller's registration.
    let observer: Int?
}

/// What the library delivered to each registration during one operation, and anything it delivered
/// wrongly (to the wrong observer or object, with the wrong key path, to a deinitialising observer).
final class ModelJournal: ModelDelegateSink, @unchecked Sendable {  // all state is guarded by `lock`
    private struct Route: Hashable {
        let call: Int
        let keyPath: AnyKeyPath
    }

    private let lock = NSLock()
    private var received: [Int: [ModelRecord]] = [:]
    private var problems: [String] = []
    private var keyPaths: [Int: AnyKeyPath] = [:]
    private var routes: [Route: DeliveryCheck] = [:]
    private var deinitialising: Set<Int> = []
    private var armed: (registration: Int, action: () -> Void)?

    /// Records the key path a registration's records must carry.
    func expect(_ keyPath: AnyKeyPath, for registration: Int) {
        lock.withLock { keyPaths[registration] = keyPath }
    }

    /// Routes the records of one `keyPaths:` call (numbered `call`) to each key path's registration.
    func route(call: Int, keyPath: AnyKeyPath, to check: DeliveryCheck) {
        lock.withLock {
            routes[Route(call: call, keyPath: keyPath)] = check
            keyPaths[check.registration] = keyPath
        }
    }

    /// The registration's next callback runs `action` (once), after recording its record.
    func arm(_ registration: Int, action: @escaping () -> Void) {
        lock.withLock { armed = (registration, action) }
    }

    func receive(
        _ record: ModelRecord,
        for check: DeliveryCheck,
        observer: ModelObserver?,
        object: AnyObject?,
        keyPath: AnyKeyPath
    ) {
        let action: (() -> Void)? = lock.withLock {
            let name = "r\(check.registration)"
            if let observer {
                if observer.id != check.observer { problems.append("\(name) was given observer \(observer.id)") }
                if deinitialising.contains(observer.id) {
                    problems.append("\(name) called a deinitialising observer (\(observer.id))")
                }
            }
            if let object, ObjectIdentifier(object) != check.object {
                problems.append("\(name) was given another object")
            }
            if let expected = keyPaths[check.registration], expected != keyPath {
                problems.append("\(name) was given key path \(keyPath), not \(expected)")
            }
            received[check.registration, default: []].append(record)
            guard let armed, armed.registration == check.registration else { return nil }
            self.armed = nil
            return armed.action
        }
        action?()
    }

    /// A record of a `keyPaths:` call, routed by its key path.
    func receive(
        _ record: ModelRecord,
        ofCall call: Int,
        observer: ModelObserver,
        object: AnyObject,
        keyPath: AnyKeyPath
    ) {
        guard let check = lock.withLock({ routes[Route(call: call, keyPath: keyPath)] }) else {
            return problem("a record of call \(call) came with key path \(keyPath), which it did not observe")
        }
        receive(record, for: check, observer: observer, object: object, keyPath: keyPath)
    }

    func delegateDelivered(
        to observer: ModelObserver,
        keyPath: AnyKeyPath,
        of object: AnyObject,
        change: KVOChange<Any>,
        context: UnsafeMutableRawPointer?
    ) {
        guard let context else { return problem("a delegate record came with no context") }
        if change.keyPath != keyPath { problem("a delegate record's key path differs from the one it was passed") }
        let call = Int(bitPattern: context) - 1
        let record = ModelRecord(untyped: change, of: type(of: keyPath).valueType)
        receive(record, ofCall: call, observer: observer, object: object, keyPath: keyPath)
    }

    func observerDeinitialises(_ id: Int) {
        lock.withLock { _ = deinitialising.insert(id) }
    }

    func problem(_ message: String) {
        lock.withLock { problems.append(message) }
    }

    /// Everything received since the last call, by registration.
    func takeReceived() -> [Int: [ModelRecord]] {
        lock.withLock {
            defer { received = [:] }
            return received
        }
    }

    func takeProblems() -> [String] {
        lock.withLock {
            defer { problems = [] }
            return problems
        }
    }
}
