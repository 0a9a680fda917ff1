// A block of two parameters, `{ observer, change in }`, is the shape of the forms that deliver elsewhere
// (`delivery: .mainActor`, `delivery: .queue(q)`). Written without `delivery:`, it would otherwise meet the
// action form's error ("expects 1 argument, but 2 were used"), which points away from the fix. These
// unavailable forms catch that shape and say what to write instead.

extension KVOController {
    @available(
        *,
        unavailable,
        message:
            "a block of (observer, change) is the form that delivers elsewhere: add `delivery: .mainActor` or `delivery: .queue(q)`; to be called synchronously on the changing thread, take three parameters: { observer, object, change in }"
    )
    public func observe<Object: KeyValueObservable, Value>(
        _ object: Object?,
        keyPath: KeyPath<Object, Value>,
        options: KVOOptions = [.new],
        block: @escaping @Sendable (Observer, KVOChange<Value>) -> Void
    ) {
        fatalError("unavailable")
    }

    @available(
        *,
        unavailable,
        message:
            "a block of (observer, change) is not a form of several key paths: take three parameters, { observer, object, change in }; to deliver on the main actor or a queue, observe each typed key path with `delivery:`"
    )
    public func observe<Object: KeyValueObservable>(
        _ object: Object?,
        keyPaths: [PartialKeyPath<Object>],
        options: KVOOptions = [.new],
        block: @escaping @Sendable (Observer, KVOChange<Any>) -> Void
    ) {
        fatalError("unavailable")
    }

    @available(
        *,
        unavailable,
        message:
            "a block of (observer, change) is not a form of string key paths: take three parameters, { observer, object, change in }; to deliver on the main actor or a queue, observe the typed key path with `delivery:`"
    )
    public func observe<Object: KeyValueObservable>(
        _ object: Object?,
        keyPath: String,
        options: KVOOptions = [.new],
        block: @escaping @Sendable (Observer, KVOChange<Any>) -> Void
    ) throws {
        fatalError("unavailable")
    }
}
