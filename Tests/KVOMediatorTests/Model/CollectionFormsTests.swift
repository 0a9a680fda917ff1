import Foundation
import Testing

@testable import KVOMediator

/// Proxy mutations reach every registration whose value is the collection, whichever form it was
/// made in, with the kind, indexes and elements (the model's smallest cases; once known issues).
@Suite struct CollectionFormsTests {
    @Test func aStringKeyPathOfAnArrayGetsTheProxysKindAndIndexes() throws {
        let root = ModelRoot()
        let observer = TestObserver()
        let records = Recorder<Any>()
        try observer.kvoController.observe(root, keyPath: "songs", options: [.old, .new]) { _, _, change in
            records.append(change)
        }
        root.mutableArrayValue(for: \.songs).append(1)
        #expect(
            records.changes.map { ModelRecord(untyped: $0) } == [
                ModelRecord(kind: .insertion, new: .list([1]), indexes: IndexSet(integer: 0))
            ]
        )
    }

    @Test func aStringKeyPathOfASetGetsTheProxysKind() throws {
        let root = ModelRoot()
        let observer = TestObserver()
        let records = Recorder<Any>()
        try observer.kvoController.observe(root, keyPath: "tags", options: [.old, .new]) { _, _, change in
            records.append(change)
        }
        root.mutableSetValue(for: \.tags).insert(1)
        #expect(records.changes.map { ModelRecord(untyped: $0) } == [ModelRecord(kind: .insertion, new: .bag([1]))])
    }

    @Test func aChainEndingAtAnArrayGetsTheProxysKindAndIndexes() {
        let shelf = ModelShelf()
        let observer = TestObserver()
        let records = Recorder<[Int]>()
        observer.kvoController.observe(shelf, keyPath: \.root.songs, options: [.old, .new]) { _, _, change in
            records.append(change)
        }
        shelf.root.mutableArrayValue(for: \.songs).append(1)
        #expect(
            records.changes.map(ModelRecord.init) == [
                ModelRecord(kind: .insertion, new: .list([1]), indexes: IndexSet(integer: 0))
            ]
        )
    }
}

/// The typed and string forms of one chain meet once the chain is whole, whatever links it went
/// through before (the model's seed 2129425814858523816, operation 310).
@Suite struct ChainFormsTests {
    @Test func unobservingByNameEndsATypedChainWhoseLinkWasPutBack() {
        let depot = ModelDepot()
        let first = ModelLinkA()
        let link = ModelLinkB(value: 1)
        first.b = link
        depot.a = first
        let observer = TestObserver()
        observer.kvoController.observe(depot, keyPath: \.a?.b?.value) { _, _, _ in }
        // A second first link holding the same last link: the chain reads `link` again.
        let second = ModelLinkA()
        second.b = link
        depot.a = second
        observer.kvoController.unobserve(depot, keyPath: "a.b.value")
        #expect(observer.kvoController.observationCount == 0)
        #expect(link.kvoRegistrar.subscriptionCount == 0)
    }
}
