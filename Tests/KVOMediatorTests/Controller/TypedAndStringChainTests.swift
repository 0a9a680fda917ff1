import Foundation
import KVOMediator
import Synchronization
import Testing

/// The typed and string forms of one chain (`\.a?.b?.value` and `"a.b.value"`) on one controller: one
/// registration while the chain can be followed to its end; two while a link is nil, when Swift gives
/// no way to tell what a typed key path reads past the link. Decided from the objects as they are now,
/// never from what other registrations found earlier: the same lines give the same answer every time.
@Suite struct TypedAndStringChainTests {
    /// A depot whose chain is whole: `a` and `a.b` are there.
    private func wholeDepot() -> ModelDepot {
        let depot = ModelDepot()
        depot.a = ModelLinkA()
        depot.a?.b = ModelLinkB(value: 0)
        return depot
    }

    @Test func theTypedAndStringFormsOfAWholeChainAreOneRegistrationEitherWayRound() throws {
        for typedFirst in [true, false] {
            let depot = wholeDepot()
            let observer = TestObserver()
            let calls = CallCounter()
            if typedFirst {
                observer.kvoController.observe(depot, keyPath: \.a?.b?.value) { _, _, _ in calls.increment() }
                try observer.kvoController.observe(depot, keyPath: "a.b.value") { _, _, _ in calls.increment() }
            } else {
                try observer.kvoController.observe(depot, keyPath: "a.b.value") { _, _, _ in calls.increment() }
                observer.kvoController.observe(depot, keyPath: \.a?.b?.value) { _, _, _ in calls.increment() }
            }
            depot.a?.b?.value = 1
            #expect(observer.kvoController.observationCount == 1)
            #expect(calls.count == 1)
        }
    }

    @Test func whileALinkIsNilTheFormsAreTwoRegistrationsWhateverRanBefore() throws {
        // Other objects' chains observed whole first, in both forms: they teach nothing to the next.
        for _ in 0..<3 {
            let warm = wholeDepot()
            let warmObserver = TestObserver()
            warmObserver.kvoController.observe(warm, keyPath: \.a?.b?.value) { _, _, _ in }
            try warmObserver.kvoController.observe(warm, keyPath: "a.b.value") { _, _, _ in }
            #expect(warmObserver.kvoController.observationCount == 1)

            let depot = ModelDepot()
            let observer = TestObserver()
            let typed = Recorder<Int?>()
            let named = Recorder<Any>()
            observer.kvoController.observe(depot, keyPath: \.a?.b?.value, options: [.new]) { _, _, change in
                typed.append(change)
            }
            try observer.kvoController.observe(depot, keyPath: "a.b.value", options: [.new]) { _, _, change in
                named.append(change)
            }
            #expect(observer.kvoController.observationCount == 2)
            let link = ModelLinkA()
            link.b = ModelLinkB(value: 0)
            depot.a = link
            #expect(typed.changes.map(\.newValue) == [.some(.some(0))])
            #expect(named.changes.map { $0.newValue as? Int } == [0])
            #expect(typed.changes.map(\.keyPathName) == ["a.b.value"])
            // Whole now, a third registration in either form meets them.
            observer.kvoController.observe(depot, keyPath: \.a?.b?.value) { _, _, _ in }
            try observer.kvoController.observe(depot, keyPath: "a.b.value") { _, _, _ in }
            #expect(observer.kvoController.observationCount == 2)
        }
    }

    @Test func unobservingByTheOtherFormEndsARegistrationOnlyWhileTheChainIsWhole() throws {
        let depot = ModelDepot()
        let observer = TestObserver()
        observer.kvoController.observe(depot, keyPath: \.a?.b?.value) { _, _, _ in }
        try observer.kvoController.observe(depot, keyPath: "a.b.value") { _, _, _ in }
        // While `a` is nil, each form's unobserve ends its own form only.
        observer.kvoController.unobserve(depot, keyPath: "a.b.value")
        #expect(observer.kvoController.observationCount == 1)
        try observer.kvoController.observe(depot, keyPath: "a.b.value") { _, _, _ in }
        observer.kvoController.unobserve(depot, keyPath: \ModelDepot.a?.b?.value)
        #expect(observer.kvoController.observationCount == 1)
        // Whole, the string registration is the chain `\.a?.b?.value` names: either form ends it.
        observer.kvoController.observe(depot, keyPath: \.a?.b?.value) { _, _, _ in }
        depot.a = ModelLinkA()
        depot.a?.b = ModelLinkB(value: 0)
        observer.kvoController.unobserve(depot, keyPath: \ModelDepot.a?.b?.value)
        #expect(observer.kvoController.observationCount == 0)
        observer.kvoController.observe(depot, keyPath: \.a?.b?.value) { _, _, _ in }
        observer.kvoController.unobserve(depot, keyPath: "a.b.value")
        #expect(observer.kvoController.observationCount == 0)
    }

    @Test func unobservingATypedKeyPathThisControllerObservesCallsNoGetterBesideAStringForm() throws {
        // (Another thread may be setting the properties it names: as Cocoa's removeObserver, unobserve
        // reads none of them when the registration knows what it reads.)
        let holder = CountingHolder()
        holder.link = CountingLink()
        let observer = TestObserver()
        try observer.kvoController.observe(holder, keyPath: "link.value") { _, _, _ in }
        observer.kvoController.observe(holder, keyPath: \.link?.counted) { _, _, _ in }
        let reads = holder.link!.reads.count
        observer.kvoController.unobserve(holder, keyPath: \CountingHolder.link?.counted)
        #expect(holder.link!.reads.count == reads)
        // Not the string registration's chain: it stays.
        #expect(observer.kvoController.observationCount == 1)
        // Observed only by its string form, the typed key path of its chain is read to tell: it ends it.
        observer.kvoController.unobserve(holder, keyPath: \CountingHolder.link?.value)
        #expect(observer.kvoController.observationCount == 0)
    }

    @Test func unobservingATypedChainReadsNothingWhileAnotherThreadSetsItsLeaf() throws {
        // (Under ThreadSanitizer, a read of `value` here while the writer sets it is a reported race:
        // `unobserve` once evaluated the key path to compare it with the string registration.)
        let holder = CountingHolder()
        let leaf = CountingLink()
        holder.link = leaf
        let observer = TestObserver()
        try observer.kvoController.observe(holder, keyPath: "link") { _, _, _ in }
        observer.kvoController.observe(holder, keyPath: \.link?.value) { _, _, _ in }
        let started = Atomic<Bool>(false)
        let stop = Atomic<Bool>(false)
        let writer = TestThread {
            var next = 0
            while !stop.load(ordering: .relaxed) {
                next += 1
                leaf.value = next
                started.store(true, ordering: .releasing)
            }
        }
        while !started.load(ordering: .acquiring) { usleep(100) }
        observer.kvoController.unobserve(holder, keyPath: \CountingHolder.link?.value)
        stop.store(true, ordering: .relaxed)
        #expect(writer.join(seconds: 60))
        // The string registration names another chain: it stays.
        #expect(observer.kvoController.observationCount == 1)
    }

    @Test func bothFormsOfAChainMadeWhileALinkWasNilEndByTheTypedFormOnceItIsWhole() throws {
        let holder = CountingHolder()
        let observer = TestObserver()
        let typed = Recorded<Int?>()
        let named = Recorded<Any?>()
        observer.kvoController.observe(holder, keyPath: \.link?.value, options: [.new]) { _, _, change in
            typed.append(change.newValue ?? nil)
        }
        try observer.kvoController.observe(holder, keyPath: "link.value", options: [.new]) { _, _, change in
            named.append(change.newValue ?? nil)
        }
        #expect(observer.kvoController.observationCount == 2)
        holder.link = CountingLink()
        holder.link?.value = 3
        #expect(typed.values == [0, 3])
        #expect(named.values.count == 2)
        observer.kvoController.unobserve(holder, keyPath: \CountingHolder.link?.value)
        #expect(observer.kvoController.observationCount == 0)
        holder.link?.value = 4
        #expect(typed.values == [0, 3])
        #expect(named.values.count == 2)
    }

    @Test func aTypedChainsRecordsKeepTheNameItFoundOnceALinkIsNilAgain() throws {
        let depot = wholeDepot()
        let names = Recorded<String>()
        let token = try depot.observe(\.a?.b?.value) { _, change in names.append(change.keyPathName) }
        depot.a?.b?.value = 1
        depot.a = nil
        token.invalidate()
        #expect(names.values == ["a.b.value", "a.b.value"])
    }
}

/// A link with a computed property that counts its calls.
private final class CountingLink: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    let reads = CallCounter()
    @Observed var value = 0
    var counted: Int {
        reads.increment()
        return value
    }
}

private final class CountingHolder: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var link: CountingLink?
}
