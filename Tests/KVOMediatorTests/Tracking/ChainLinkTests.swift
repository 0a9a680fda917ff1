import Foundation
import KVOMediator
import Testing

@testable import KVOMediator

// A set of one of a chain's links is delivered by following the new link (TypedKVOInfo+Links), not by
// evaluating the key path again; whatever that path does not know to be a plain chain of `@Observed`
// objects is evaluated. Both must give the records Cocoa gives: old = the old link's leaf, new = the
// new link's leaf, and only the new chain observed afterwards.

private class LinkLeaf: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var value: Int

    init(_ value: Int) {
        self.value = value
    }
}

/// Stores a `value` too, but its key path reads another leaf's: an object of this class must not be read
/// at the offset of its base class's storage.
private final class RedirectingLeaf: LinkLeaf, @unchecked Sendable {
    let target: LinkLeaf

    init(_ value: Int, reading target: LinkLeaf) {
        self.target = target
        super.init(value)
    }

    override var value: Int {
        get { target.value }
        set { target.value = newValue }
    }
}

private final class LinkMiddle: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var leaf: LinkLeaf
    @Observed var optionalLeaf: LinkLeaf?
    @ObservedWeak var weakLeaf: LinkLeaf?

    init(_ leaf: LinkLeaf) {
        self.leaf = leaf
    }
}

private final class LinkNode: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var next: LinkNode?
    @Observed var value: Int

    init(_ value: Int) {
        self.value = value
    }
}

private final class LinkRoot: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var middle: LinkMiddle

    init(_ middle: LinkMiddle) {
        self.middle = middle
    }
}

/// Observes `\.middle.leaf.value` of `root`, recording each change.
private func observe(_ root: LinkRoot, options: KVOOptions = [.old, .new], by observer: TestObserver) -> Recorder<Int> {
    let recorder = Recorder<Int>()
    observer.kvoController.observe(root, keyPath: \.middle.leaf.value, options: options) { _, _, change in
        recorder.append(change)
    }
    return recorder
}

@Suite struct ChainLinkTests {
    private var keyPath: AnyKeyPath { \LinkRoot.middle.leaf.value }

    @Test func replacingAMiddleLinkDeliversTheOldAndTheNewLeafAndFollowsOnlyTheNewChain() {
        let oldLeaf = LinkLeaf(1)
        let root = LinkRoot(LinkMiddle(oldLeaf))
        let observer = TestObserver()
        let recorder = observe(root, by: observer)
        let newLeaf = LinkLeaf(2)
        root.middle.leaf = newLeaf
        oldLeaf.value = 10  // no longer in the chain
        newLeaf.value = 3
        root.middle.leaf = oldLeaf
        newLeaf.value = 20  // no longer in the chain
        oldLeaf.value = 11
        #expect(
            recorder.changes == [
                change(keyPath, old: 1, new: 2),
                change(keyPath, old: 2, new: 3),
                change(keyPath, old: 3, new: 10),
                change(keyPath, old: 10, new: 11),
            ]
        )
        #expect(newLeaf.kvoRegistrar.subscriptionCount == 0)
        #expect(oldLeaf.kvoRegistrar.subscriptionCount == 1)
        #expect(root.middle.kvoRegistrar.subscriptionCount == 1)
    }

    @Test func replacingTheRootLinkFollowsTheWholeNewTail() {
        let oldMiddle = LinkMiddle(LinkLeaf(1))
        let root = LinkRoot(oldMiddle)
        let observer = TestObserver()
        let recorder = observe(root, by: observer)
        let newMiddle = LinkMiddle(LinkLeaf(5))
        root.middle = newMiddle
        oldMiddle.leaf.value = 100
        oldMiddle.leaf = LinkLeaf(101)
        newMiddle.leaf.value = 6
        newMiddle.leaf = LinkLeaf(7)
        #expect(
            recorder.changes == [
                change(keyPath, old: 1, new: 5),
                change(keyPath, old: 5, new: 6),
                change(keyPath, old: 6, new: 7),
            ]
        )
        #expect(oldMiddle.kvoRegistrar.subscriptionCount == 0)
        #expect(oldMiddle.leaf.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func aRootLinkReplacedByTheObjectsOwnDeinitDeliversNothing() {
        let observer = TestObserver()
        let recorder = Recorder<String>()
        var person: SelfRelinkingPerson? = SelfRelinkingPerson()
        observer.kvoController.observe(person, keyPath: \.address.city, options: [.old, .new]) { _, person, change in
            recorder.append(change)
            #expect(person.address.city == change.newValue)
        }
        person?.address = Address(city: "Paris")
        #expect(recorder.changes == [change(\SelfRelinkingPerson.address.city, old: "London", new: "Paris")])
        // Its deinit sets `address`: a record would hand the callback an object that is going.
        person = nil
        #expect(recorder.count == 1)
    }

    @Test(arguments: [KVOOptions.new, KVOOptions.old, []])
    func aReplacedLinkCarriesWhatTheOptionsAskFor(options: KVOOptions) {
        let root = LinkRoot(LinkMiddle(LinkLeaf(1)))
        let observer = TestObserver()
        let recorder = observe(root, options: options, by: observer)
        root.middle.leaf = LinkLeaf(2)
        #expect(
            recorder.changes == [
                change(keyPath, old: options.contains(.old) ? 1 : nil, new: options.contains(.new) ? 2 : nil)
            ]
        )
    }

    @Test func settingALinkToTheObjectItHoldsIsAChangeWithEqualValues() {
        let root = LinkRoot(LinkMiddle(LinkLeaf(4)))
        let observer = TestObserver()
        let recorder = observe(root, by: observer)
        root.middle.leaf = root.middle.leaf
        root.middle.leaf.value = 5
        #expect(recorder.changes == [change(keyPath, old: 4, new: 4), change(keyPath, old: 4, new: 5)])
        #expect(root.middle.leaf.kvoRegistrar.subscriptionCount == 1)
    }

    @Test func aLinkReplacedByAnObjectOfASubclassThatReadsElsewhereIsEvaluated() {
        let root = LinkRoot(LinkMiddle(LinkLeaf(1)))
        let observer = TestObserver()
        let recorder = observe(root, by: observer)
        let target = LinkLeaf(50)
        let redirecting = RedirectingLeaf(9, reading: target)
        root.middle.leaf = redirecting
        target.value = 51
        root.middle.leaf = LinkLeaf(2)
        target.value = 52  // no longer in the chain
        #expect(
            recorder.changes == [
                change(keyPath, old: 1, new: 50),
                change(keyPath, old: 50, new: 51),
                change(keyPath, old: 51, new: 2),
            ]
        )
        #expect(target.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func optionalAndWeakLinksKeepTheirRecords() {
        let middle = LinkMiddle(LinkLeaf(0))
        let observer = TestObserver()
        let optional = Recorder<Int?>()
        let weak = Recorder<Int?>()
        observer.kvoController.observe(middle, keyPath: \.optionalLeaf?.value, options: [.old, .new]) { _, _, change in
            optional.append(change)
        }
        observer.kvoController.observe(middle, keyPath: \.weakLeaf?.value, options: [.old, .new]) { _, _, change in
            weak.append(change)
        }
        let first = LinkLeaf(1)
        let second = LinkLeaf(2)
        middle.optionalLeaf = first
        middle.weakLeaf = first
        middle.optionalLeaf = second
        middle.weakLeaf = second
        middle.optionalLeaf = nil
        middle.weakLeaf = nil
        let optionalPath: AnyKeyPath = \LinkMiddle.optionalLeaf?.value
        let weakPath: AnyKeyPath = \LinkMiddle.weakLeaf?.value
        #expect(
            optional.changes == [
                change(optionalPath, old: .some(nil), new: .some(1)),
                change(optionalPath, old: .some(1), new: .some(2)),
                change(optionalPath, old: .some(2), new: .some(nil)),
            ]
        )
        #expect(
            weak.changes == [
                change(weakPath, old: .some(nil), new: .some(1)),
                change(weakPath, old: .some(1), new: .some(2)),
                change(weakPath, old: .some(2), new: .some(nil)),
            ]
        )
    }

    @Test func aChainThroughAnOptionalLinkFollowsItAndGivesOptionalValues() {
        let root = LinkRoot(LinkMiddle(LinkLeaf(0)))
        let observer = TestObserver()
        let recorder = Recorder<Int?>()
        observer.kvoController.observe(root, keyPath: \.middle.optionalLeaf?.value, options: [.old, .new]) {
            _,
            _,
            change in recorder.append(change)
        }
        let first = LinkLeaf(1)
        let second = LinkLeaf(2)
        root.middle.optionalLeaf = first
        root.middle.optionalLeaf = second
        first.value = 10  // no longer in the chain
        second.value = 3
        root.middle.optionalLeaf = nil
        second.value = 20  // no longer in the chain
        root.middle.optionalLeaf = first
        let path: AnyKeyPath = \LinkRoot.middle.optionalLeaf?.value
        #expect(
            recorder.changes == [
                change(path, old: .some(nil), new: .some(1)),
                change(path, old: .some(1), new: .some(2)),
                change(path, old: .some(2), new: .some(3)),
                change(path, old: .some(3), new: .some(nil)),
                change(path, old: .some(nil), new: .some(10)),
            ]
        )
        #expect(second.kvoRegistrar.subscriptionCount == 0)
        #expect(first.kvoRegistrar.subscriptionCount == 1)
    }

    @Test func aChainThroughTheSameObjectTwiceIsEvaluated() throws {
        // \.next?.next?.value on a node that is its own next reads `x.next` twice, listed once.
        let x = LinkNode(1)
        x.next = x
        let y = LinkNode(2)
        let z = LinkNode(3)
        y.next = z
        let observer = TestObserver()
        let recorder = Recorder<Int?>()
        observer.kvoController.observe(x, keyPath: \.next?.next?.value, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        x.next = y
        z.value = 4
        y.next = x  // the new chain runs back into the root
        x.value = 5
        let path: AnyKeyPath = \LinkNode.next?.next?.value
        #expect(
            recorder.changes == [
                change(path, old: .some(1), new: .some(3)),
                change(path, old: .some(3), new: .some(4)),
                change(path, old: .some(4), new: .some(1)),
                change(path, old: .some(1), new: .some(5)),
            ]
        )
        y.next = nil  // ends the cycle, so that the nodes can go
        x.next = nil
    }

    @Test func objectsLeftOutOfTheChainAreReleased() {
        let root = LinkRoot(LinkMiddle(LinkLeaf(1)))
        let observer = TestObserver()
        let recorder = observe(root, by: observer)
        weak var droppedLeaf: LinkLeaf?
        weak var droppedMiddle: LinkMiddle?
        do {
            let leaf = LinkLeaf(2)
            droppedLeaf = leaf
            root.middle.leaf = leaf
            let middle = LinkMiddle(LinkLeaf(3))
            droppedMiddle = middle
            root.middle = middle
            root.middle = LinkMiddle(LinkLeaf(4))
        }
        #expect(droppedLeaf == nil)
        #expect(droppedMiddle == nil)
        #expect(recorder.changes.map(\.newValue) == [2, 3, 4])
    }

    @Test func chainsOnTwoThreadsReplaceTheirLinksIndependently() async {
        let rounds = 2_000
        let counts = await withTaskGroup(of: (Int, Int).self) { group in
            for _ in 0..<2 {
                group.addTask {
                    let root = LinkRoot(LinkMiddle(LinkLeaf(0)))
                    let observer = TestObserver()
                    let recorder = observe(root, by: observer)
                    let leaves = [LinkLeaf(1), LinkLeaf(2)]
                    for round in 0..<rounds { root.middle.leaf = leaves[round & 1] }
                    let last = recorder.changes.last?.newValue ?? nil
                    return (recorder.changes.count, last ?? -1)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts.count == 2)
        for (count, last) in counts {
            #expect(count == rounds)
            #expect(last == 2)
        }
    }

    @Test func anObservedValueIsItsStoragesFirstField() {
        // What the link path reads a leaf by (see TypedKVOInfo+Links).
        #expect(MemoryLayout<Observed<Int>>.offset(of: \Observed<Int>.value) == 0)
        #expect(MemoryLayout<Observed<String>>.offset(of: \Observed<String>.value) == 0)
        #expect(MemoryLayout<Observed<LinkLeaf?>>.offset(of: \Observed<LinkLeaf?>.value) == 0)
        #expect(MemoryLayout<Observed<[Int]>>.offset(of: \Observed<[Int]>.value) == 0)
    }

    @Test func theLayoutOfAClassNamesItsRegistrarAndItsObjectLinks() throws {
        let layout = ObservedFields.layout(of: LinkMiddle.self)
        let middle = LinkMiddle(LinkLeaf(0))
        let base = UnsafeRawPointer(Unmanaged.passUnretained(middle).toOpaque())
        let registrarOffset = try #require(layout.registrarOffset)
        #expect(
            (base + registrarOffset).load(as: UnsafeRawPointer.self)
                == UnsafeRawPointer(Unmanaged.passUnretained(middle.kvoRegistrar).toOpaque())
        )
        let links = Dictionary(uniqueKeysWithValues: zip(layout.fields.map(\.name), layout.links.map(\.holdsObject)))
        #expect(links == ["leaf": true, "optionalLeaf": true, "weakLeaf": false])
        #expect(ObservedFields.layout(of: LinkLeaf.self).links.map(\.holdsObject) == [false])
    }
}
