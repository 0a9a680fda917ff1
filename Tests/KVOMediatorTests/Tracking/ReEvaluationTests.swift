import KVOMediator
import Testing

@testable import KVOMediator

/// A computed property's re-evaluation that reads what the last one read records nothing
/// (`AccessTracker+ExpectedReads`); one that reads more, fewer or other properties records what it
/// matched and goes on, once, and ends subscribed to what it now reads.
@Suite struct ReEvaluationTests {
    final class Form: KeyValueObservable, @unchecked Sendable {
        let kvoRegistrar = KVORegistrar()
        @Observed var useSecond = true
        @Observed var first = 1
        @Observed var second = 10
        @Observed var other: Form?
        var twice: Int { first + first + second }
        var partial: Int { useSecond ? first + second : first }
        var swapped: Int { useSecond ? second * 100 + first : first * 100 + second }
        var across: Int { first + (other?.first ?? 0) }
        /// Reads `other`, its `first` and, unless that is 0, `second`: fewer reads can look like a chain.
        var scaledOther: Int? {
            guard let value = other?.first, value != 0 else { return nil }
            return value * second
        }
        /// How many times `counted` was read.
        var reads = 0
        var counted: Int {
            reads += 1
            return useSecond ? first + second : first
        }
    }

    /// A getter that caches its value until an input is set (each setter below clears the cache first).
    final class Report: KeyValueObservable, @unchecked Sendable {
        let kvoRegistrar = KVORegistrar()
        @Observed private(set) var detailed = false
        @Observed private(set) var count = 1
        @Observed private(set) var title = "a"
        private var cached: String?
        var summary: String {
            if let cached { return cached }
            let summary = detailed ? "\(count) \(title)" : "\(count)"
            cached = summary
            return summary
        }

        func setDetailed(_ value: Bool) {
            cached = nil
            detailed = value
        }

        func setCount(_ value: Int) {
            cached = nil
            count = value
        }

        func setTitle(_ value: String) {
            cached = nil
            title = value
        }
    }

    @Test func aPropertyReadTwiceIsOneDependency() {
        let form = Form()
        let observer = TestObserver()
        let recorder = recordChanges(of: form, \.twice, by: observer)
        form.first = 2
        form.first = 3
        form.second = 20
        #expect(
            recorder.changes == [
                change(\Form.twice, old: 12, new: 14), change(\Form.twice, old: 14, new: 16),
                change(\Form.twice, old: 16, new: 26),
            ]
        )
        #expect(form.kvoRegistrar.subscriptionCount == 2)  // first and second, once each
    }

    /// Reading fewer properties drops the ones no longer read; reading them again subscribes them again.
    @Test func fewerAndThenMoreReadsMoveTheDependencies() {
        let form = Form()
        let observer = TestObserver()
        let recorder = recordChanges(of: form, \.partial, by: observer)
        #expect(form.kvoRegistrar.subscriptionCount == 3)
        form.useSecond = false
        #expect(form.kvoRegistrar.subscriptionCount == 2)
        form.second = 20  // not read: nothing
        form.first = 2
        form.useSecond = true
        #expect(form.kvoRegistrar.subscriptionCount == 3)
        form.second = 30
        #expect(
            recorder.changes == [
                change(\Form.partial, old: 11, new: 1), change(\Form.partial, old: 1, new: 2),
                change(\Form.partial, old: 2, new: 22), change(\Form.partial, old: 22, new: 32),
            ]
        )
    }

    /// The same properties read in another order are other reads: recorded, and followed.
    @Test func theSameReadsInAnotherOrderAreFollowed() {
        let form = Form()
        let observer = TestObserver()
        let recorder = recordChanges(of: form, \.swapped, by: observer)
        form.useSecond = false
        form.first = 2
        form.second = 20
        form.useSecond = true
        form.first = 3
        #expect(recorder.changes.map(\.newValue) == [110, 210, 220, 2002, 2003])
        #expect(zip(recorder.changes, recorder.changes.dropFirst()).allSatisfy { $1.oldValue == $0.newValue })
        #expect(form.kvoRegistrar.subscriptionCount == 3)
    }

    /// Another object's properties: replacing it moves the dependency, and the one left out is released.
    @Test func readsOfAnotherObjectFollowItsReplacement() {
        let form = Form()
        weak var replaced: Form?
        do {
            let inner = Form()
            replaced = inner
            form.other = inner
        }
        let observer = TestObserver()
        let recorder = recordChanges(of: form, \.across, by: observer)
        let next = Form()
        next.first = 5
        replaced?.first = 2
        form.other = next
        #expect(replaced == nil)
        form.other?.first = 6
        form.first = 2
        #expect(recorder.changes.map(\.newValue) == [3, 6, 7, 8])
        #expect(next.kvoRegistrar.subscriptionCount == 1)
        withExtendedLifetime(next) {}
    }

    /// The getter runs once per change, whether it reads what it read before or something else.
    @Test func theGetterRunsOncePerChange() {
        let form = Form()
        let observer = TestObserver()
        let recorder = recordChanges(of: form, \.counted, by: observer)
        let atStart = form.reads
        form.first = 2  // the same reads
        form.useSecond = false  // fewer reads
        form.useSecond = true  // more reads
        form.second = 20  // the same reads again
        #expect(form.reads - atStart == 4)
        #expect(recorder.changes.map(\.newValue) == [12, 2, 12, 22])
    }

    /// A getter that caches: when it starts reading something else, it stays subscribed to all it read
    /// (a second run would find the cache filled, read nothing, and leave the registration deaf).
    @Test func aCachingGetterThatReadsSomethingElseStaysSubscribed() {
        let report = Report()
        let observer = TestObserver()
        let recorder = recordChanges(of: report, \.summary, options: [.new], by: observer)
        report.setDetailed(true)
        report.setTitle("b")
        report.setCount(2)
        #expect(recorder.changes.map(\.newValue) == ["1 a", "1 b", "2 b"])
        #expect(report.kvoRegistrar.subscriptionCount == 3)
    }

    /// Reading fewer properties than last time, ending at a property whose value is not the key path's
    /// (`other?.first` is 0, the value nil): not taken for a chain, so later changes are re-evaluated.
    @Test func fewerReadsThatLookLikeAChainAreNotTakenForOne() {
        let form = Form()
        let inner = Form()
        form.other = inner
        let observer = TestObserver()
        let recorder = recordChanges(of: form, \.scaledOther, by: observer)
        inner.first = 0
        inner.first = 5
        form.second = 3
        #expect(
            recorder.changes == [
                change(\Form.scaledOther, old: Int??.some(10), new: Int??.some(nil)),
                change(\Form.scaledOther, old: Int??.some(nil), new: Int??.some(50)),
                change(\Form.scaledOther, old: Int??.some(50), new: Int??.some(15)),
            ]
        )
    }
}
