import KVOMediator
import Synchronization

/// One registration's account of the records it was given, checked as each arrives: every change
/// exactly once and in order, an `.initial` record only first, a `.prior` record before each change,
/// and nothing after the registration's end returned.
///
/// Values are sequence numbers, so each change record must say `old == ` the last value reported and
/// `new == ` the last sequence number + 1: a change seen twice, or one lost, breaks that at once.
final class SequenceProbe: @unchecked Sendable {
    // The account is written by one thread at a time, always under the target group's `turns`: by
    // its owner during a set, or (`.initial`) by the registering thread inside `observe`. It is read
    // under that lock too. Only `ended` is read without it (by a callback that must not be running).
    let label: ProbeLabel
    let start: TargetState
    /// Set once the registration's end (unobserve, invalidate, a release) has returned, or once its
    /// observer began to deinitialise: no callback may start after that.
    let ended = Atomic<Bool>(false)
    private let expectsInitial: Bool
    private let expectsPrior: Bool
    /// False for a registration made while its target was being set: it learns where it starts from
    /// its first record.
    private var isStartKnown: Bool
    private let isRacing: Bool
    private var lastValue: Int?
    private var lastSequence: Int
    /// False while a racing registration's first records showed only a detached chain.
    private var isSequenceKnown = true
    private var pendingPrior = false
    private var sawInitial = false
    /// The change records received (not `.initial`, not `.prior`).
    private(set) var changes = 0
    /// Every record received.
    private(set) var records = 0

    /// - Parameter racing: Whether `observe` was called without holding `turns`, racing the owner's sets
    ///   (`start` then only bounds what it may see: nothing older, and no `.initial`).
    init(_ label: ProbeLabel, start: TargetState, options: KVOOptions, racing: Bool = false) {
        precondition(!(racing && options.contains(.initial)), "a racing .initial would race the owner's records")
        self.label = label
        self.start = start
        isRacing = racing
        isStartKnown = !racing
        expectsInitial = options.contains(.initial)
        expectsPrior = options.contains(.prior)
        lastValue = start.value
        lastSequence = start.sequence
    }

    private enum Record {
        case initial(Int?)
        case prior(old: Int?)
        case change(old: Int?, new: Int?)
    }

    /// Checks a record of a cell's `\.value`.
    func record(_ change: KVOChange<Int>) {
        if change.isPrior {
            guard let old = change.oldValue else { return fail("a .prior record without its old value") }
            note(.prior(old: old))
        } else if let old = change.oldValue {
            guard let new = change.newValue else { return fail("a change record without its new value") }
            note(.change(old: old, new: new))
        } else {
            note(.initial(change.newValue))
        }
    }

    /// Checks a record of the chain `\.middle?.leaf?.value`, whose values are optional themselves.
    func record(_ change: KVOChange<Int?>) {
        if change.isPrior {
            guard case .some(let old) = change.oldValue else { return fail("a .prior record without its old value") }
            note(.prior(old: old))
        } else if case .some(let old) = change.oldValue {
            guard case .some(let new) = change.newValue else { return fail("a change record without its new value") }
            note(.change(old: old, new: new))
        } else {
            guard case .some(let new) = change.newValue else { return fail("an .initial record without its value") }
            note(.initial(new))
        }
    }

    private func note(_ record: Record) {
        records += 1
        if ended.load(ordering: .acquiring) { fail("a callback started after the registration's end returned") }
        switch record {
        case .initial(let value):
            if !expectsInitial || sawInitial || records != 1 { fail("an .initial record not asked for, or not first") }
            sawInitial = true
            if value != start.value {
                fail("an .initial value of \(show(value)) while the value was \(show(start.value))")
            }
        case .prior(let old):
            if !expectsPrior || pendingPrior { fail("a .prior record not asked for, or twice") }
            pendingPrior = true
            if isStartKnown, old != lastValue {
                fail("a .prior record's old value \(show(old)) after \(show(lastValue))")
            }
        case .change(let old, let new):
            if expectsPrior, !pendingPrior, isStartKnown { fail("a change record without its .prior record") }
            pendingPrior = false
            changes += 1
            guard isStartKnown else { return adoptStart(old: old, new: new) }
            if old != lastValue {
                fail("old value \(show(old)) after \(show(lastValue)) was reported: a change seen twice or one lost")
            }
            if let new {
                if isSequenceKnown, new != lastSequence + 1 {
                    fail("new value \(new) after sequence number \(lastSequence)")
                } else if !isSequenceKnown, new <= start.sequence {
                    fail("new value \(new), though sequence number \(start.sequence) was set before observe")
                }
                lastSequence = new
                isSequenceKnown = true
            }
            lastValue = new
        }
    }

    /// Takes a racing registration's first change record as where it starts: that change may have
    /// raced its `observe` (its old value, or its `.prior` record, may be missing or the new value), so
    /// only its new value is checked, to be newer than what was set before `observe` was called.
    private func adoptStart(old: Int?, new: Int?) {
        isStartKnown = true
        lastValue = new
        if let new {
            if new <= start.sequence {
                fail("new value \(new), though sequence number \(start.sequence) was set before observe")
            }
            lastSequence = new
        } else if let old {
            lastSequence = old  // a chain detached: its sequence is where its leaf was
        } else {
            isSequenceKnown = false
        }
    }

    /// Checks, right after `observe` returned, that an `.initial` record asked for was delivered in it.
    func verifyStarted() {
        if expectsInitial, !sawInitial { fail("no .initial record before observe returned") }
    }

    /// Checks a churned registration, ended between reading `end` and reading `after`: it saw every
    /// change made before `end` (all were made after it was registered) and none made after `after`.
    /// A racing registration is due every change after its first record (none if it had none).
    func verify(endedBetween end: TargetState, and after: TargetState) {
        let due = isRacing ? 0 : end.events - start.events
        if isStartKnown, changes < due || lastSequence < end.sequence {
            let made = end.events - start.events
            fail("\(changes) changes up to \(lastSequence); by its end there were \(made) up to \(end.sequence)")
        }
        if changes > after.events - start.events {
            fail("\(changes) changes, but only \(after.events - start.events) were made while it was registered")
        }
    }

    /// Checks a registration that lived for the whole phase: it saw every change of its target, exactly.
    func verifyWholePhase(final: TargetState) {
        if changes != final.events - start.events || lastSequence != final.sequence || lastValue != final.value {
            fail(
                "\(changes) changes up to \(lastSequence) (last value \(show(lastValue))); "
                    + "the owner made \(final.events - start.events) up to \(final.sequence) (value \(show(final.value)))"
            )
        }
    }

    private func fail(_ what: String) {
        Violations.shared.report("\(label): \(what)")
    }

    private func show(_ value: Int?) -> String {
        value.map(String.init) ?? "nil"
    }
}
