import Foundation
import KVOMediator
import Testing

/// The old value of a computed property's change: the value last delivered, for values with no
/// references (`LastValue`), else read before the set; as read at `willChangeValue(for:)` for manual
/// changes; before the set for prior records.
@Suite struct ComputedOldValueTests {
    final class Totals: KeyValueObservable, @unchecked Sendable {
        let kvoRegistrar = KVORegistrar()
        @Observed var first = 0
        @Observed var second = 0
        /// Not observable: changing it announces nothing.
        var bias = 0
        @Observed var label = "a"
        var suffix = ""
        @Observed var part = Part()
        var sum: Int { first + second + bias }
        var text: String { label + suffix }
        var current: Part { part }
    }

    final class Part: @unchecked Sendable {}

    @Test func eachOldValueIsTheValueDeliveredBefore() {
        let totals = Totals()
        let observer = TestObserver()
        let recorder = Recorder<Int>()
        observer.kvoController.observe(totals, keyPath: \.sum, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        totals.first = 1
        totals.second = 10
        totals.first = 5
        totals.second = 10  // the same value again: still a change, from 15 to 15
        #expect(
            recorder.changes == [
                change(\Totals.sum, old: 0, new: 1), change(\Totals.sum, old: 1, new: 11),
                change(\Totals.sum, old: 11, new: 15), change(\Totals.sum, old: 15, new: 15),
            ]
        )
    }

    /// An input that announces nothing shows in the next change's new value; its old value is the one
    /// observers were last told (Cocoa would read it at will-change, with the silent change in it).
    @Test func aSilentChangeShowsInTheNextNewValueOnly() {
        let totals = Totals()
        let observer = TestObserver()
        let recorder = Recorder<Int>()
        observer.kvoController.observe(totals, keyPath: \.sum, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        totals.bias = 100
        totals.first = 1
        #expect(recorder.changes == [change(\Totals.sum, old: 0, new: 101)])
    }

    /// A value that holds references is read before each set, as Cocoa reads it, so the silent change
    /// is in the old value too.
    @Test func aValueWithReferencesIsReadBeforeTheSet() {
        let totals = Totals()
        let observer = TestObserver()
        let recorder = Recorder<String>()
        observer.kvoController.observe(totals, keyPath: \.text, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        totals.suffix = "!"
        totals.label = "b"
        #expect(recorder.changes == [change(\Totals.text, old: "a!", new: "b!")])
    }

    /// Manual announcements take the kept value too (here, with two registrations on the slot);
    /// prior records, sent before the set, read it.
    @Test func manualChangesTakeTheKeptValueAndPriorRecordsReadIt() {
        let totals = Totals()
        let observer = TestObserver()
        let manual = Recorder<Int>()
        let prior = Recorder<Int>()
        observer.kvoController.observe(totals, keyPath: \.sum, options: [.old, .new]) { _, _, change in
            manual.append(change)
        }
        let priorObserver = TestObserver()  // (one controller registers a key path of an object once)
        priorObserver.kvoController.observe(totals, keyPath: \.sum, options: [.old, .new, .prior]) { _, _, change in
            prior.append(change)
        }
        totals.bias = 7
        totals.willChangeValue(for: \.sum)
        totals.bias = 8
        totals.didChangeValue(for: \.sum)
        totals.bias = 20
        totals.first = 1
        #expect(
            manual.changes == [change(\Totals.sum, old: 0, new: 8), change(\Totals.sum, old: 8, new: 21)]
        )
        #expect(
            prior.changes == [
                change(\Totals.sum, old: 7, prior: true), change(\Totals.sum, old: 7, new: 8),
                change(\Totals.sum, old: 20, prior: true), change(\Totals.sum, old: 20, new: 21),
            ]
        )
    }

    /// An object value is not kept between changes: the registration holds no value alive.
    @Test func anObjectValueIsNotKeptAlive() {
        let totals = Totals()
        weak var replaced: Part?
        let observer = TestObserver()
        let count = Recorder<Int>()
        observer.kvoController.observe(totals, keyPath: \.current, options: [.old, .new]) { _, _, change in
            count.append(KVOChange<Int>(kind: change.kind, keyPath: \Totals.current))
        }
        do {
            let part = Part()
            totals.part = part
            replaced = part
        }
        totals.part = Part()
        #expect(count.changes.count == 2)
        #expect(replaced == nil)
    }

    /// Changes on two threads: the value kept is the newest evaluation's, which read every input set
    /// before it, so a change after both threads end starts from the current value.
    @Test func afterChangesOnTwoThreadsTheOldValueIsTheCurrentOne() {
        let totals = Totals()
        let observer = TestObserver()
        let recorder = Recorder<Int>()
        observer.kvoController.observe(totals, keyPath: \.sum, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        let threads = [
            TestThread { for value in 1...2_000 { totals.first = value } },
            TestThread { for value in 1...2_000 { totals.second = value * 3 } },
        ]
        for thread in threads { thread.join() }
        #expect(recorder.changes.count == 4_000)
        totals.first = 0
        #expect(recorder.changes.last == change(\Totals.sum, old: 8_000, new: 6_000))
    }
}
