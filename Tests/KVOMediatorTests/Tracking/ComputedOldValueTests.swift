import Foundation
import KVOMediator
import Testing

/// The old value of a computed property's change: for values with no references (`LastValue`), the
/// value the registration last delivered, as it was when the change began; else read before the set;
/// read before the set for prior records.
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
        @Observed var items: [Int] = []
        @Observed var link: Totals?
        var sum: Int { first + second + bias }
        var count: Int { items.count }
        /// 40 bytes: too wide to keep, so read before each change.
        var wide: Wide { Wide(first: first, second: second, bias: bias, rest: (0, 0)) }
        var nothing: Void { _ = first }
        var text: String { label + suffix }
        var current: Part { part }
    }

    final class Part: @unchecked Sendable {}

    struct Wide: Equatable {
        var first: Int
        var second: Int
        var bias: Int
        var rest: (Int, Int)

        static func == (lhs: Wide, rhs: Wide) -> Bool {
            (lhs.first, lhs.second, lhs.bias) == (rhs.first, rhs.second, rhs.bias) && lhs.rest == rhs.rest
        }
    }

    @Test func eachOldValueIsTheValueDeliveredBefore() {
        let totals = Totals()
        let observer = TestObserver()
        let recorder = recordChanges(of: totals, \.sum, by: observer)
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
        let recorder = recordChanges(of: totals, \.sum, by: observer)
        totals.bias = 100
        totals.first = 1
        #expect(recorder.changes == [change(\Totals.sum, old: 0, new: 101)])
    }

    /// A value that holds references is read before each set, as Cocoa reads it, so the silent change
    /// is in the old value too.
    @Test func aValueWithReferencesIsReadBeforeTheSet() {
        let totals = Totals()
        let observer = TestObserver()
        let recorder = recordChanges(of: totals, \.text, by: observer)
        totals.suffix = "!"
        totals.label = "b"
        #expect(recorder.changes == [change(\Totals.text, old: "a!", new: "b!")])
    }

    /// Manual announcements take the kept value too (here, with two registrations on the slot);
    /// prior records, sent before the set, read it.
    @Test func manualChangesTakeTheKeptValueAndPriorRecordsReadIt() {
        let totals = Totals()
        let observer = TestObserver()
        let manual = recordChanges(of: totals, \.sum, by: observer)
        let priorObserver = TestObserver()  // (one controller registers a key path of an object once)
        let prior = recordChanges(of: totals, \.sum, options: [.old, .new, .prior], by: priorObserver)
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

    /// A set inside a manual will/did is delivered at once; the did then delivers from the value kept
    /// at the will, as Cocoa delivers from the value it read there.
    @Test func aSetBetweenWillAndDidDoesNotMoveTheDidsOldValue() {
        let totals = Totals()
        let observer = TestObserver()
        let recorder = recordChanges(of: totals, \.sum, by: observer)
        totals.willChangeValue(for: \.sum)
        totals.first = 5
        totals.didChangeValue(for: \.sum)
        #expect(recorder.changes == [change(\Totals.sum, old: 0, new: 5), change(\Totals.sum, old: 0, new: 5)])
    }

    /// With several registrations on the slot, one whose callback sets another input: each registration's
    /// old values are the values it delivered.
    @Test func aCallbackThatSetsAnInputLeavesEachRegistrationsOldValuesItsOwn() {
        let totals = Totals()
        let first = TestObserver()
        let second = TestObserver()
        let setting = Recorder<Int>()
        let watching = Recorder<Int>()
        first.kvoController.observe(totals, keyPath: \.sum, options: [.old, .new]) { _, totals, change in
            setting.append(change)
            if totals.second == 0 { totals.second = 10 }
        }
        second.kvoController.observe(totals, keyPath: \.sum, options: [.old, .new]) { _, _, change in
            watching.append(change)
        }
        totals.first = 1
        #expect(setting.changes == [change(\Totals.sum, old: 0, new: 1), change(\Totals.sum, old: 1, new: 11)])
        // (Its first record comes from the nested set, before it was told of `first`'s: its old value is
        // the sum just before that set, 1, as `first` was already stored; then `first`'s own, from 0.)
        #expect(watching.changes == [change(\Totals.sum, old: 1, new: 11), change(\Totals.sum, old: 0, new: 11)])
        totals.first = 2
        #expect(watching.changes.last == change(\Totals.sum, old: 11, new: 12))
    }

    /// A registration that is a chain while its link is there and not while it is nil: leaf sets are
    /// delivered from the setter, and the value kept is refreshed when it is evaluated again.
    @Test func anOptionalChainThatComesAndGoesHasExactOldValues() {
        let totals = Totals()
        let linked = Totals()
        let observer = TestObserver()
        let recorder = recordChanges(of: totals, \.link?.first, by: observer)
        totals.link = linked
        linked.first = 3
        linked.first = 4
        totals.link = nil
        totals.link = linked
        #expect(
            recorder.changes == [
                change(\Totals.link?.first, old: Int??.some(nil), new: 0), change(\Totals.link?.first, old: 0, new: 3),
                change(\Totals.link?.first, old: 3, new: 4), change(\Totals.link?.first, old: 4, new: Int??.some(nil)),
                change(\Totals.link?.first, old: Int??.some(nil), new: 4),
            ]
        )
    }

    /// Old values alone, new values alone, a value too wide to keep (read before each set: a silent
    /// change shows in its old value), and `Void`.
    @Test func everyOptionSetAndValueShapeHasExactRecords() {
        let totals = Totals()
        let observer = TestObserver()
        let nothing = Recorder<Void>()
        let olds = recordChanges(of: totals, \.sum, options: [.old], by: observer)
        let other = TestObserver()
        let news = recordChanges(of: totals, \.sum, options: [.new], by: other)
        let wide = recordChanges(of: totals, \.wide, by: observer)
        let token = try? totals.observe(\.nothing, options: [.old, .new]) { _, change in nothing.append(change) }
        totals.first = 1
        totals.bias = 5  // silent: the wide value's next old value, read before the set, has it
        totals.second = 2
        #expect(olds.changes == [change(\Totals.sum, old: 0), change(\Totals.sum, old: 1)])  // kept
        #expect(news.changes == [change(\Totals.sum, new: 1), change(\Totals.sum, new: 8)])
        func wideValue(_ first: Int, _ second: Int, _ bias: Int) -> Wide {
            Wide(first: first, second: second, bias: bias, rest: (0, 0))
        }
        #expect(
            wide.changes == [
                change(\Totals.wide, old: wideValue(0, 0, 0), new: wideValue(1, 0, 0)),
                change(\Totals.wide, old: wideValue(1, 0, 5), new: wideValue(1, 2, 5)),
            ]
        )
        // (Reads only `first`.)
        #expect(token != nil && nothing.changes.map { $0.oldValue != nil && $0.newValue != nil } == [true])
        token?.invalidate()
    }

    /// A collection mutation of an input re-evaluates the computed property, from the value kept.
    @Test func aCollectionMutationOfAnInputHasExactOldValues() {
        let totals = Totals()
        let observer = TestObserver()
        let recorder = recordChanges(of: totals, \.count, by: observer)
        let items = totals.mutableArrayValue(for: \.items)
        items.append(7)
        items.append(contentsOf: [8, 9])
        items.remove(at: 0)
        #expect(
            recorder.changes == [
                change(\Totals.count, old: 0, new: 1), change(\Totals.count, old: 1, new: 3),
                change(\Totals.count, old: 3, new: 2),
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

    /// A stream's registration keeps the value in the same place as the stream's end: its change records
    /// start from the kept value, and it still finishes when the object deinitialises.
    @Test func aChangeStreamOfAComputedPropertyKeepsItsValueAndFinishes() async throws {
        var totals: Totals? = Totals()
        let changes = try totals!.changes(for: \.sum, options: [.old, .new])
        totals!.bias = 100
        totals!.first = 1
        totals!.second = 2
        totals = nil
        var received: [KVOChange<Int>] = []
        for await change in changes { received.append(change) }
        #expect(received == [change(\Totals.sum, old: 0, new: 101), change(\Totals.sum, old: 101, new: 103)])
    }

    /// Changes on two threads, taking turns (a thread re-reads every input of the property, so writers
    /// of its inputs must not overlap: see ThreadingAndLifetimes): each record starts where the one
    /// before it ended, whichever thread delivered it.
    @Test func changesOnTwoThreadsTakingTurnsFormOneChainOfRecords() {
        let totals = Totals()
        let observer = TestObserver()
        let recorder = recordChanges(of: totals, \.sum, by: observer)
        let turns = NSLock()
        let threads = [
            TestThread { for value in 1...2_000 { turns.withLock { totals.first = value } } },
            TestThread { for value in 1...2_000 { turns.withLock { totals.second = value * 3 } } },
        ]
        for thread in threads { thread.join() }
        let changes = recorder.changes
        #expect(changes.count == 4_000)
        #expect(changes.first?.oldValue == 0)
        #expect(zip(changes, changes.dropFirst()).allSatisfy { $1.oldValue == $0.newValue })
        totals.first = 0
        #expect(recorder.changes.last == change(\Totals.sum, old: 8_000, new: 6_000))
    }
}
