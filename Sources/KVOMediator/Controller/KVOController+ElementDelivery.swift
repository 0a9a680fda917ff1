import Foundation

/// Observing a property of every element of a collection, with the records delivered on a queue or on the
/// main actor.
extension KVOController {
    /// Observes `keyPath` of every element of the array at `collection` of `object`, delivering each record
    /// on a dispatch queue instead of the changing thread.
    ///
    /// ```swift
    /// kvoController.observe(playlist, each: \.songs, keyPath: \.title, delivery: .queue(renderQueue)) {
    ///     renderer, change in
    ///     renderer.redraw(rows: change.indexes)
    /// }
    /// ```
    ///
    /// The records are those of ``observe(_:each:keyPath:options:file:line:block:)-(_,KeyPath<Object,[Element]>,_,_,_,_,_)``,
    /// captured when the change happens, and delivered as
    /// ``observe(_:keyPath:options:delivery:file:line:block:)-(_,_,_,KVOQueueDelivery,_,_,_)`` delivers: in
    /// the order of the changes on the queue's lane, none after ``unobserve(_:each:keyPath:)`` returns.
    ///
    /// With `.queue(q, coalescing: .latest)`, the changes of one element made while a delivery waits merge
    /// into one record (its old values from the first change, its new from the last), until a membership
    /// change: a membership change, a set of the whole collection and the `.initial` record never merge and
    /// keep their place (their indexes would say nothing of the records merged across them). So a thousand
    /// changes of one element's progress wait as one record; a thousand insertions, as a thousand. With
    /// `.distinct`, a merged record whose values all came back to the old ones is not delivered.
    ///
    /// - Parameters:
    ///   - object: The object holding the collection; nil does nothing.
    ///   - collection: The array of the elements to observe.
    ///   - keyPath: What to observe on each element.
    ///   - options: What each record carries (for the elements' values).
    ///   - delivery: `.queue(someQueue)` or `.queue(someQueue, coalescing: .latest)`: where `block` runs.
    ///   - file: The file named as where the registration was made: the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    ///   - block: Called on the queue with the observer and each record.
    public func observe<
        Object: KeyValueObservable & SendableMetatype,
        Element: KeyValueObservable & SendableMetatype,
        Value: Sendable
    >(
        _ object: Object?,
        each collection: KeyPath<Object, [Element]>,
        keyPath: KeyPath<Element, Value>,
        options: KVOOptions = [.new],
        delivery: KVOQueueDelivery,
        file: StaticString = #fileID,
        line: UInt = #line,
        block: @escaping @Sendable (Observer, KVOChange<[Value]>) -> Void
    ) where Observer: Sendable {
        guard let object else { return }
        observeElements(
            object,
            collection,
            keyPath,
            options,
            ordered: true,
            (file, line),
            elements: { $0 },
            coalescing: delivery.coalescing,
            route: DeliveryRoute(delivery),
            call: block
        )
    }

    /// ``observe(_:each:keyPath:options:delivery:file:line:block:)-(_,KeyPath<Object,[Element]>,_,_,KVOQueueDelivery,_,_,_)``
    /// for the elements of a set (with no indexes).
    public func observe<
        Object: KeyValueObservable & SendableMetatype,
        Element: KeyValueObservable & Hashable & SendableMetatype,
        Value: Sendable
    >(
        _ object: Object?,
        each collection: KeyPath<Object, Set<Element>>,
        keyPath: KeyPath<Element, Value>,
        options: KVOOptions = [.new],
        delivery: KVOQueueDelivery,
        file: StaticString = #fileID,
        line: UInt = #line,
        block: @escaping @Sendable (Observer, KVOChange<[Value]>) -> Void
    ) where Observer: Sendable {
        guard let object else { return }
        observeElements(
            object,
            collection,
            keyPath,
            options,
            ordered: false,
            (file, line),
            elements: { Array($0) },
            coalescing: delivery.coalescing,
            route: DeliveryRoute(delivery),
            call: block
        )
    }

    /// Observes `keyPath` of every element of the array at `collection` of `object`, delivering each record
    /// on the main actor: for view models of lists.
    ///
    /// ```swift
    /// kvoController.observe(playlist, each: \.songs, keyPath: \.title, delivery: .mainActor) {
    ///     viewModel, change in
    ///     viewModel.reloadRows(change.indexes)   // main actor: no hop, no trap
    /// }
    /// ```
    ///
    /// The records are delivered as
    /// ``observe(_:keyPath:options:delivery:file:line:block:)-(_,_,_,KVOMainActorDelivery,_,_,_)`` delivers,
    /// merged with `.mainActor(coalescing: .latest)` as
    /// ``observe(_:each:keyPath:options:delivery:file:line:block:)-(_,KeyPath<Object,[Element]>,_,_,KVOQueueDelivery,_,_,_)``
    /// says.
    ///
    /// - Parameters:
    ///   - object: The object holding the collection; nil does nothing.
    ///   - collection: The array of the elements to observe.
    ///   - keyPath: What to observe on each element.
    ///   - options: What each record carries (for the elements' values).
    ///   - delivery: `.mainActor` or `.mainActor(coalescing: .latest)`.
    ///   - file: The file named as where the registration was made: the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    ///   - block: Called on the main actor with the observer and each record.
    public func observe<
        Object: KeyValueObservable & SendableMetatype,
        Element: KeyValueObservable & SendableMetatype,
        Value: Sendable
    >(
        _ object: Object?,
        each collection: KeyPath<Object, [Element]>,
        keyPath: KeyPath<Element, Value>,
        options: KVOOptions = [.new],
        delivery: KVOMainActorDelivery,
        file: StaticString = #fileID,
        line: UInt = #line,
        block: @escaping @MainActor (Observer, KVOChange<[Value]>) -> Void
    ) where Observer: Sendable {
        guard let object else { return }
        observeElements(
            object,
            collection,
            keyPath,
            options,
            ordered: true,
            (file, line),
            elements: { $0 },
            coalescing: delivery.coalescing,
            route: DeliveryRoute(delivery, lane: mainActorLane),
            call: { observer, change in MainActor.assumeIsolated { block(observer, change) } }
        )
    }

    /// ``observe(_:each:keyPath:options:delivery:file:line:block:)-(_,KeyPath<Object,[Element]>,_,_,KVOMainActorDelivery,_,_,_)``
    /// for the elements of a set (with no indexes).
    public func observe<
        Object: KeyValueObservable & SendableMetatype,
        Element: KeyValueObservable & Hashable & SendableMetatype,
        Value: Sendable
    >(
        _ object: Object?,
        each collection: KeyPath<Object, Set<Element>>,
        keyPath: KeyPath<Element, Value>,
        options: KVOOptions = [.new],
        delivery: KVOMainActorDelivery,
        file: StaticString = #fileID,
        line: UInt = #line,
        block: @escaping @MainActor (Observer, KVOChange<[Value]>) -> Void
    ) where Observer: Sendable {
        guard let object else { return }
        observeElements(
            object,
            collection,
            keyPath,
            options,
            ordered: false,
            (file, line),
            elements: { Array($0) },
            coalescing: delivery.coalescing,
            route: DeliveryRoute(delivery, lane: mainActorLane),
            call: { observer, change in MainActor.assumeIsolated { block(observer, change) } }
        )
    }

    /// The delivering forms' common part: each record (with `coalescing`, what waits in a
    /// `PendingElementRecords`) moved by `route`'s hop to where it runs, where it passes the collection
    /// registration's gate again and only then loads the observer.
    private func observeElements<Object: KeyValueObservable & SendableMetatype, Elements, Element, Value: Sendable>(
        _ object: Object,
        _ collection: KeyPath<Object, Elements>,
        _ keyPath: KeyPath<Element, Value>,
        _ options: KVOOptions,
        ordered: Bool,
        _ site: (file: StaticString, line: UInt),
        elements: @escaping @Sendable (Elements) -> [Element],
        coalescing: KVOCoalescing?,
        route: DeliveryRoute,
        call: @escaping @Sendable (sending Observer, KVOChange<[Value]>) -> Void
    ) where Element: KeyValueObservable & SendableMetatype {
        let observer = _observer
        let context = HopContext()
        let pending = coalescing.map { _ in
            PendingElementRecords<Value>(options: options, same: _DistinctValues.test(for: Value.self))
        }
        _registerElements(of: object, collection, keyPath, at: site) { reservation throws(KVOError) in
            let run: @Sendable ([KVOChange<[Value]>]) -> Void = { records in
                context.info?.deliver {
                    for record in records {
                        guard !reservation.hasEnded, let observer = observer.object else { return }
                        call(observer, record)
                    }
                }
            }
            let deliver: @Sendable (KVOChange<[Value]>, ObjectIdentifier?) -> Void = { record, member in
                guard let pending else {
                    let note = CascadedDeliveries.willQueue()
                    return route.hop { CascadedDeliveries.run(note) { run([record]) } }
                }
                guard pending.add(record, member: member) else { return }
                let note = CascadedDeliveries.willQueue()
                route.hop { CascadedDeliveries.run(note) { run(pending.take()) } }
            }
            return try object._observeElements(
                collection,
                keyPath: keyPath,
                options: pending == nil ? options : options.capturingBothValues,
                ordered: ordered,
                site: site,
                form: route.form,
                observer: Observer.self,
                elements: elements,
                prepare: context.attach,
                deliverChangeOf: { _, record, member in deliver(record, member) },
                deliver: { _, record in deliver(record, nil) }
            )
        }
    }
}
