import KVOMediator

/// A model the tests observe.
final class Thermostat: KeyValueObservable, @unchecked Sendable {  // changed by one thread at a time
    let kvoRegistrar = KVORegistrar()
    @Observed var temperature = 20
    @Observed var mode = "auto"
}

/// An observer whose controller delivers to queues and to the main actor.
final class Panel: @unchecked Sendable {  // its controller is used by one thread at a time
    lazy var kvoController = KVOController(observer: self)
}
