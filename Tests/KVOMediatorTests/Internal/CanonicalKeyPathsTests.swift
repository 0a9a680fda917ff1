import Foundation
import Testing

@testable import KVOMediator

/// The bridge's table of one key path object per stored property: the first given for a property is
/// the one returned for it after, whichever equal key path a later call site gives.
@Suite struct CanonicalKeyPathsTests {
    @Test func theFirstKeyPathGivenForAPropertyIsReturnedForEveryLaterEqualOne() {
        let table = CanonicalKeyPaths()
        let first = freshKeyPath()
        let later = freshKeyPath()
        #expect(first == later && first !== later)
        #expect(table.canonical(first, field: 16) === first)
        #expect(table.canonical(later, field: 16) === first)
        #expect(table.withCanonical(later, field: 16) { $0 } === first)
    }

    @Test func eachPropertyKeepsItsOwnKeyPath() {
        let table = CanonicalKeyPaths()
        let fields = [16, 24, 32, 16 + 8 * 16]  // The last shares the first's first slot to look in.
        let firsts = fields.map { _ in freshKeyPath() }
        for (field, keyPath) in zip(fields, firsts) { #expect(table.canonical(keyPath, field: field) === keyPath) }
        for (field, keyPath) in zip(fields, firsts) {
            #expect(table.withCanonical(freshKeyPath(), field: field) { $0 } === keyPath)
        }
    }

    @Test func beyondSixteenPropertiesEachCallSiteKeepsItsOwnKeyPath() {
        let table = CanonicalKeyPaths()
        for index in 0..<16 { _ = table.canonical(freshKeyPath(), field: 8 * index) }
        let own = freshKeyPath()
        #expect(table.canonical(own, field: 8 * 16) === own)
        #expect(table.withCanonical(own, field: 8 * 16) { $0 } === own)
    }

    @Test func theTableReleasesItsKeyPathsWhenItGoes() {
        weak var probe: AnyKeyPath?
        do {
            let table = CanonicalKeyPaths()
            let keyPath = freshKeyPath()
            probe = keyPath
            _ = table.canonical(keyPath, field: 8)
            #expect(probe != nil)
        }
        #expect(probe == nil)
    }

    @Test func threadsRacingForOnePropertyAgreeOnceItIsStored() {
        for _ in 0..<200 {
            let box = TableBox()
            let given = (0..<4).map { _ in freshKeyPath() }
            let returned = Recorded<ObjectIdentifier>()
            let threads = given.map { keyPath in
                let sent = UncheckedSendable(keyPath)
                return Thread { returned.append(ObjectIdentifier(box.table.canonical(sent.value, field: 40))) }
            }
            for thread in threads { thread.start() }
            while returned.values.count < given.count { usleep(50) }
            // A thread that found the slot claimed before its key path was stored reports its own; each
            // reports either its own or the winner's, and every call after gets the winner's.
            let stored = ObjectIdentifier(box.table.canonical(freshKeyPath(), field: 40))
            #expect(given.contains { ObjectIdentifier($0) == stored })
            #expect(returned.values.contains(stored))
            for result in returned.values { #expect(given.contains { ObjectIdentifier($0) == result }) }
        }
    }
}

/// A key path object made at run time: equal to every other this returns, and never the same object.
private func freshKeyPath() -> AnyKeyPath {
    (\KeyPathOuter.inner).appending(path: \KeyPathInner.value)
}

private struct KeyPathOuter {
    var inner = KeyPathInner()
}

private struct KeyPathInner {
    var value = 0
}

private final class TableBox: @unchecked Sendable {
    let table = CanonicalKeyPaths()
}

/// A key path handed to another thread: key path objects are immutable.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
