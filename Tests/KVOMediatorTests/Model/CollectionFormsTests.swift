import Foundation
import KVOMediator
import Testing

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
            records.changes.map(ModelRecord.init(untyped:)) == [
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
        #expect(records.changes.map(ModelRecord.init(untyped:)) == [ModelRecord(kind: .insertion, new: .bag([1]))])
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
