import Foundation
import KVOMediator

/// Records the change records it is given, for tests of code that observes: those of a registration of its
/// own (``init(_:_:options:)``), or of any form you hand ``handler`` (or ``record(_:)``) to: a controller's
/// block, a token, a string key path, a queue or main-actor delivery, a stream (``record(from:)``).
///
/// ```swift
/// let recorder = try KVORecorder(profile, \.name, options: [.old, .new])
/// profile.name = "Ada"
/// #expect(recorder.changes == [KVOChange(oldValue: "", newValue: "Ada", keyPath: \Profile.name)])
/// ```
///
/// A delivery that runs later (`delivery: .queue(q)`, `.mainActor`, a stream) is waited for:
///
/// ```swift
/// viewModel.kvoController.observe(importer, keyPath: \.progress, delivery: .queue(work)) { _, change in
///     recorder.record(change)
/// }
/// importer.progress = 1
/// let records = try await recorder.waitFor(1)   // suspends (not blocks) until `work` has delivered it
/// ```
///
/// It works the same under Swift Testing and XCTest: it depends on neither, and a wait that times out
/// throws ``KVOTestTimeout``, which both report as a failure.
///
/// > Tip: Compare whole records (`recorder.changes == [...]`, built with `KVOChange`'s initialiser): a record
/// > carries its kind, old and new values, indexes and prior flag, and a test that reads only `newValue`
/// > misses a wrong `oldValue` or a prior record too many.
public final class KVORecorder<Value>: @unchecked Sendable {  // `records`, `taken`, `token`, `consumer`: under `lock`
    private let lock = NSLock()
    private var records: [KVOChange<Value>] = []
    /// How many records `next(timeout:)` has returned.
    private var taken = 0
    private var token: KVOObservation?
    private var consumer: Task<Void, Never>?
    /// Which stream consumer may record (see `record(from:)`): raised by each new one and by `stop()`, so
    /// that a consumer replaced or stopped records nothing more, also of what its stream had buffered.
    private var consumerGeneration = 0

    /// A recorder that records what it is handed (``handler``, ``record(_:)``, ``record(from:)``).
    public init() {}

    /// A recorder of `keyPath` of `object`: it observes with a token of its own until ``stop()``, or until
    /// it is released.
    ///
    /// - Parameters:
    ///   - object: The object to observe.
    ///   - keyPath: What to observe.
    ///   - options: What each record carries (as for any registration).
    ///   - file: The file named as where the registration was made (in ``KVOTrace`` and
    ///     `debugDescription`): the caller's, by default.
    ///   - line: The line named with `file`: the caller's, by default.
    /// - Throws: What observing `keyPath` throws (`KVOError`): a key path that reads nothing observable.
    public convenience init<Object: KeyValueObservable & SendableMetatype>(
        _ object: Object,
        _ keyPath: KeyPath<Object, Value>,
        options: KVOOptions = [.old, .new],
        file: StaticString = #fileID,
        line: UInt = #line
    ) throws {
        self.init()
        let token = try object.observe(keyPath, options: options, file: file, line: line) { [weak self] _, change in
            self?.record(change)
        }
        lock.withLock { self.token = token }
    }

    deinit {
        token?.invalidate()
        consumer?.cancel()
    }

    /// Records a change: pass it to any form's callback, or pass ``handler``.
    public func record(_ change: KVOChange<Value>) {
        lock.withLock { records.append(change) }
    }

    /// ``record(_:)`` as a closure, for the forms whose callback is the change alone.
    public var handler: @Sendable (KVOChange<Value>) -> Void {
        { [weak self] change in self?.record(change) }
    }

    /// Records every element `changes` yields (a stream of `changes(for:options:)`), in a task of its own,
    /// until the stream ends, ``stop()`` or the recorder is released.
    public func record<Changes: AsyncSequence & Sendable>(from changes: Changes)
    where Changes.Element == KVOChange<Value> {
        // (Made under the lock, so that its generation is the current one when it starts.)
        let replaced = lock.withLock {
            consumerGeneration += 1
            let generation = consumerGeneration
            defer {
                consumer = Task { [weak self] in
                    do {
                        for try await change in changes {
                            guard !Task.isCancelled, let self, self.record(change, ifConsumer: generation) else {
                                return
                            }
                        }
                    } catch {}
                }
            }
            return consumer
        }
        replaced?.cancel()
    }

    /// Records `change` for the stream consumer of `generation`, if it is still the current one: whether it
    /// is.
    private func record(_ change: KVOChange<Value>, ifConsumer generation: Int) -> Bool {
        lock.withLock {
            guard generation == consumerGeneration else { return false }
            records.append(change)
            return true
        }
    }

    /// Every record so far, in the order they came.
    public var changes: [KVOChange<Value>] {
        lock.withLock { records }
    }

    /// How many records came so far.
    public var count: Int {
        lock.withLock { records.count }
    }

    /// The new value of each record so far (nil where a record has none: a prior record, or no `.new`).
    public var newValues: [Value?] {
        lock.withLock { records.map(\.newValue) }
    }

    /// Forgets the records so far (and where ``next(timeout:)`` is).
    public func removeAll() {
        lock.withLock {
            records = []
            taken = 0
        }
    }

    /// Ends the recorder's own registration (and the stream it records, if any): nothing more is recorded
    /// from them. Idempotent.
    public func stop() {
        let (token, consumer) = lock.withLock {
            defer {
                (self.token, self.consumer) = (nil, nil)
                consumerGeneration += 1
            }
            return (self.token, self.consumer)
        }
        token?.invalidate()
        consumer?.cancel()
    }

    /// The next record that this method has not returned yet, waiting for it if needed.
    ///
    /// It waits without blocking its thread, so deliveries to dispatch queues and to the main actor run
    /// meanwhile (an `async` test on the main actor lets them run too).
    ///
    /// - Parameter timeout: How long to wait at most: ten seconds by default (a wait that succeeds returns
    ///   as soon as the record comes; see ``settleKVODeliveries(timeout:)``).
    /// - Returns: The record.
    /// - Throws: ``KVOTestTimeout`` when no record comes in time.
    public nonisolated(nonsending) func next(timeout: Duration = .seconds(10)) async throws -> KVOChange<Value> {
        let deadline = ContinuousClock.now + timeout
        while true {
            let record: KVOChange<Value>? = lock.withLock {
                guard taken < records.count else { return nil }
                defer { taken += 1 }
                return records[taken]
            }
            if let record { return record }
            let expected = lock.withLock { taken + 1 }
            try await waitForMore(until: deadline, expected: expected, timeout: timeout)
        }
    }

    /// Waits until at least `count` records have come (counting from the first, or from the last
    /// ``removeAll()``), and returns them all.
    ///
    /// It waits without blocking its thread, so deliveries to dispatch queues and to the main actor run
    /// meanwhile (an `async` test on the main actor lets them run too).
    ///
    /// - Parameters:
    ///   - count: How many records to wait for.
    ///   - timeout: How long to wait at most: ten seconds by default (a wait that succeeds returns as soon
    ///     as the records have come; see ``settleKVODeliveries(timeout:)``).
    /// - Returns: Every record so far (`count` or more).
    /// - Throws: ``KVOTestTimeout`` when fewer than `count` come in time.
    public nonisolated(nonsending) func waitFor(
        _ count: Int,
        timeout: Duration = .seconds(10)
    ) async throws -> [KVOChange<Value>] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let records = changes
            if records.count >= count { return records }
            try await waitForMore(until: deadline, expected: count, timeout: timeout)
        }
    }

    /// Pauses briefly (deliveries to queues and to the main actor run meanwhile, on their own); throws
    /// once `deadline` has passed, saying whether the main actor runs what is queued to it.
    private nonisolated(nonsending) func waitForMore(
        until deadline: ContinuousClock.Instant,
        expected: Int,
        timeout: Duration
    ) async throws {
        guard ContinuousClock.now < deadline else {
            let mainActorRan = await DeliveryQueues.mainActorResponds(within: .milliseconds(100))
            throw KVOTestTimeout(expected: expected, received: count, timeout: timeout, mainActorRan: mainActorRan)
        }
        try await Task.sleep(for: .milliseconds(1))
    }
}
