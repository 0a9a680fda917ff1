import KVOMediator
import Synchronization

/// The dashboard's record of what happened: observations that fired, in every callback style, and the
/// view model's registrations coming and going.
///
/// Callbacks record from whichever thread they run on (the model queue, the main actor, a task), so
/// it is thread-safe. It keeps the newest events of each kind and counts every one.
final class ObservationFeed: Sendable {
    private struct State {
        var nextSequence = 0
        var observations: [FeedEvent] = []
        var registrations: [FeedEvent] = []
        var fired: [CallbackStyle: Int] = [:]
    }

    /// How many events of each kind are kept.
    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 1_000) {
        self.capacity = capacity
    }

    /// Records a change record delivered in `style`, named by `change.keyPathName`.
    func record<Value>(_ style: CallbackStyle, _ change: KVOChange<Value>, subject: String) {
        append(.fired(style), keyPathName: change.keyPathName, subject: subject, detail: ValueText.detail(of: change))
    }

    /// Records a value that arrived with no change record (a stream gives values only).
    func record(_ style: CallbackStyle, keyPathName: String, subject: String, old: Any?, new: Any?) {
        let detail = FeedEvent.Detail.setting(old: old.map(ValueText.of) ?? "-", new: ValueText.of(new))
        append(.fired(style), keyPathName: keyPathName, subject: subject, detail: detail)
    }

    /// Records that the view model registered (`observed`) or ended (`unobserved`) observations.
    func recordRegistration(_ kind: FeedEvent.Kind, of keyPaths: String, on subject: String, controllerCount: Int) {
        append(kind, keyPathName: keyPaths, subject: subject, detail: .registrations(controller: controllerCount))
    }

    /// The newest `limit` observations, oldest first.
    func recentObservations(_ limit: Int) -> [FeedEvent] {
        state.withLock { Array($0.observations.suffix(max(0, limit))) }
    }

    /// The newest `limit` registration events, oldest first.
    func recentRegistrations(_ limit: Int) -> [FeedEvent] {
        state.withLock { Array($0.registrations.suffix(max(0, limit))) }
    }

    /// Every event kept that was recorded after `sequence`, in order.
    func events(after sequence: Int) -> [FeedEvent] {
        state.withLock { state in
            (state.observations.filter { $0.sequence > sequence }
                + state.registrations.filter { $0.sequence > sequence })
                .sorted { $0.sequence < $1.sequence }
        }
    }

    /// How many callbacks have run, in each style.
    var firedCounts: [CallbackStyle: Int] {
        state.withLock { $0.fired }
    }

    /// How many callbacks have run, in all.
    var firedTotal: Int {
        state.withLock { $0.fired.values.reduce(0, +) }
    }

    private func append(_ kind: FeedEvent.Kind, keyPathName: String, subject: String, detail: FeedEvent.Detail) {
        state.withLock { state in
            state.nextSequence += 1
            let event = FeedEvent(
                sequence: state.nextSequence,
                kind: kind,
                keyPathName: keyPathName,
                subject: subject,
                detail: detail
            )
            if case .fired(let style) = kind {
                state.fired[style, default: 0] += 1
                Self.keep(event, in: &state.observations, capacity: capacity)
            } else {
                Self.keep(event, in: &state.registrations, capacity: capacity)
            }
        }
    }

    /// Appends, dropping the oldest in batches, so that keeping the newest costs O(1) amortised.
    private static func keep(_ event: FeedEvent, in events: inout [FeedEvent], capacity: Int) {
        events.append(event)
        if events.count >= 2 * capacity { events.removeFirst(events.count - capacity) }
    }
}
