import KVOMediator

/// A class whose instances are equal by `==` when their names are: `.distinct` compares references by
/// identity all the same.
final class Badge: Equatable, @unchecked Sendable {  // immutable
    let name: String

    init(_ name: String) {
        self.name = name
    }

    static func == (lhs: Badge, rhs: Badge) -> Bool {
        lhs.name == rhs.name
    }
}

/// A value that is not `Equatable`: its changes are always delivered.
struct Opaque: @unchecked Sendable {
    var number: Int
}

/// A room a `Thermostat` links to, for chains.
final class Room: KeyValueObservable, @unchecked Sendable {  // used by one thread at a time
    let kvoRegistrar = KVORegistrar()
    @Observed var name: String

    init(_ name: String) {
        self.name = name
    }
}

/// One property of each kind `.distinct` compares differently, a computed property that often keeps its
/// value, a chain and a collection.
final class Thermostat: KeyValueObservable, @unchecked Sendable {  // used by one thread at a time
    let kvoRegistrar = KVORegistrar()
    @Observed var target = 20
    @Observed var reading = 20.0
    @Observed var label: String? = nil
    @Observed var nested: Int?? = .some(nil)
    @Observed var badge = Badge("a")
    @Observed var optionalBadge: Badge? = nil
    @Observed var opaque = Opaque(number: 0)
    @Observed var anything: Any = 0
    @Observed var room: Room? = Room("hall")
    @Observed var history: [Int] = []
    @Observed(automaticallyNotifies: false) var manual = 0

    /// Whether the target is even: the same after most changes of it.
    var isEven: Bool { target % 2 == 0 }
}
