import KVOMediator
import Testing

/// A computed property that reads a chain of `@Observed` properties and transforms the leaf's value is
/// not that chain, even when the first value it computes equals the leaf's (an empty string uppercased,
/// a zero doubled): each change of the leaf is delivered with the computed value.
@Suite struct ComputedOverChainTests {
    @Test func aTransformOfAChainsLeafIsDeliveredTransformedEvenWhenItFirstEqualsTheLeaf() {
        let holder = LabelHolder()
        let observer = TestObserver()
        let upper = Recorder<String?>()
        let doubled = Recorder<Int?>()
        observer.kvoController.observe(holder, keyPath: \.upperText, options: [.old, .new]) { _, _, change in
            upper.append(change)
        }
        observer.kvoController.observe(holder, keyPath: \.doubledCount, options: [.old, .new]) { _, _, change in
            doubled.append(change)
        }
        holder.label?.text = "paris"
        holder.label?.count = 5
        #expect(upper.changes.map(\.oldValue) == [.some(.some(""))])
        #expect(upper.changes.map(\.newValue) == [.some(.some("PARIS"))])
        #expect(doubled.changes.map(\.newValue) == [.some(.some(10))])
        #expect(doubled.changes.map(\.oldValue) == [.some(.some(0))])
    }

    @Test func aLaterRegistrationOfTheSameComputedPropertyIsNotTaughtByAnEarlierOne() {
        // The first registration's first value equals the leaf's (0 doubled); the second's does not.
        for count in [0, 3] {
            let holder = LabelHolder()
            holder.label?.count = count
            let observer = TestObserver()
            let doubled = Recorder<Int?>()
            observer.kvoController.observe(holder, keyPath: \.doubledCount, options: [.new]) { _, _, change in
                doubled.append(change)
            }
            holder.label?.count = 7
            #expect(doubled.changes.map(\.newValue) == [.some(.some(14))])
        }
    }
}
