import Foundation

@testable import KVOMediator

/// Collects reported errors.
final class ErrorLog: @unchecked Sendable {  // `values` is guarded by `lock`
    private let lock = Lock()
    private var values: [KVOError] = []

    var errors: [KVOError] {
        lock.withLock { values }
    }

    func append(_ error: KVOError) {
        lock.withLock { values.append(error) }
    }
}

/// Changes what it observes from its own deinit, before its controller goes.
final class ChangingOnDeinitObserver {
    lazy var kvoController = KVOController(observer: self)
    let circle: Circle
    let person: Person

    init(circle: Circle, person: Person) {
        self.circle = circle
        self.person = person
    }

    deinit {
        circle.radius = 3
        person.address.city = "Nice"
    }
}
