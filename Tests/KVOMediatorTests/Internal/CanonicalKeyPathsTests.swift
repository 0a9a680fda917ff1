import Foundation
import Testing

@testable import KVOMediator

/// The bridge's table of one key path object per stored property: the first a setter registers for a
/// property is the one reads report for it after, whichever equal key path they were given.
@Suite struct CanonicalKeyPathsTests {
    @Test func aReadReportsItsOwnKeyPathUntilASetRegistersOne() {
        let table = CanonicalKeyPaths()
        let read = freshKeyPath()
        let set = freshKeyPath()
        #expect(read == set && read !== set)
        #expect(table.canonical(read, field: 16) === read)
        table.register(set, field: 16)
        #expect(table.canonical(read, field: 16) === set)
        #expect(table.withCanonical(field: 16, registering: false, { read }, { $0 }) === set)
    }

    @Test func theFirstKeyPathRegisteredForAPropertyStays() {
        let table = CanonicalKeyPaths()
        let first = freshKeyPath()
        #expect(table.register(first, field: 16) === first)
        #expect(table.register(freshKeyPath(), field: 16) === first)
        #expect(table.canonical(freshKeyPath(), field: 16) === first)
    }

    @Test func aKeyPathIsAskedForOnlyWhileNoneIsRegistered() {
        let table = CanonicalKeyPaths()
        let registered = freshKeyPath()
        var asked = 0
        func ask(_ keyPath: AnyKeyPath) -> AnyKeyPath {
            asked += 1
            return keyPath
        }
        let read = table.withCanonical(field: 16, registering: false, { ask(registered) }, { $0 })
        #expect(read === registered && asked == 1)
        #expect(table.canonical(freshKeyPath(), field: 16) !== registered)
        let set = table.withCanonical(field: 16, registering: true, { ask(registered) }, { $0 })
        #expect(set === registered && asked == 2)
        for registering in [false, true] {
            let again = table.withCanonical(field: 16, registering: registering, { ask(freshKeyPath()) }, { $0 })
            #expect(again === registered)
        }
        #expect(asked == 2)
    }

    @Test func eachPropertyKeepsItsOwnKeyPath() {
        let table = CanonicalKeyPaths()
        let fields = [16, 24, 32, 16 + 8 * 16]  // The last shares the first's first slot to look in.
        let registered = fields.map { _ in freshKeyPath() }
        for (field, keyPath) in zip(fields, registered) { table.register(keyPath, field: field) }
        for (field, keyPath) in zip(fields, registered) {
            #expect(table.withCanonical(field: field, registering: false, { freshKeyPath() }, { $0 }) === keyPath)
        }
        let unregistered = freshKeyPath()
        #expect(table.canonical(unregistered, field: 24 + 8 * 16) === unregistered)
    }

    @Test func beyondSixteenPropertiesEachCallSiteKeepsItsOwnKeyPath() {
        let table = CanonicalKeyPaths()
        for index in 0..<16 { table.register(freshKeyPath(), field: 8 * index) }
        table.register(freshKeyPath(), field: 8 * 16)
        let own = freshKeyPath()
        #expect(table.canonical(own, field: 8 * 16) === own)
        #expect(table.withCanonical(field: 8 * 16, registering: true, { own }, { $0 }) === own)
    }

    @Test func theTableReleasesItsKeyPathsWhenItGoes() {
        weak var probe: AnyKeyPath?
        do {
            let table = CanonicalKeyPaths()
            let keyPath = freshKeyPath()
            probe = keyPath
            table.register(keyPath, field: 8)
            #expect(probe != nil)
        }
        #expect(probe == nil)
    }

    @Test func threadsRacingToRegisterOnePropertyLeaveOneOfTheirKeyPaths() {
        for _ in 0..<200 {
            let box = TableBox()
            let given = (0..<4).map { _ in freshKeyPath() }
            let done = DispatchGroup()
            for keyPath in given {
                let sent = UncheckedSendable(keyPath)
                done.enter()
                Thread {
                    box.table.register(sent.value, field: 40)
                    _ = box.table.canonical(freshKeyPath(), field: 40)
                    done.leave()
                }.start()
            }
            done.wait()
            let stored = box.table.canonical(freshKeyPath(), field: 40)
            #expect(given.contains { $0 === stored })
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
