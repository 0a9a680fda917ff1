import Foundation
import Testing

@testable import KVOMediator

/// The bridge's table of one key path object per stored property: the first key path a read or set gives
/// for a property is the one every read and set reports for it after, whichever equal key path it was given.
@Suite struct CanonicalKeyPathsTests {
    @Test func theFirstKeyPathGivenForAPropertyIsReportedForItAfter() {
        let table = CanonicalKeyPaths()
        let first = freshKeyPath()
        let later = freshKeyPath()
        #expect(first == later && first !== later)
        #expect(table.canonical(first, field: 16) === first)
        #expect(table.canonical(later, field: 16) === first)
        #expect(table.withCanonical(field: 16, { later }, { $0 }) === first)
    }

    @Test func aKeyPathIsAskedForOnlyWhileNoneIsRegistered() {
        let table = CanonicalKeyPaths()
        let registered = freshKeyPath()
        var asked = 0
        func ask(_ keyPath: AnyKeyPath) -> AnyKeyPath {
            asked += 1
            return keyPath
        }
        #expect(table.withCanonical(field: 16, { ask(registered) }, { $0 }) === registered)
        #expect(asked == 1)
        for _ in 0..<3 {
            #expect(table.withCanonical(field: 16, { ask(freshKeyPath()) }, { $0 }) === registered)
        }
        #expect(asked == 1)
    }

    @Test func customStorageRegistersNothing() {
        weak var probe: AnyKeyPath?
        let table = CanonicalKeyPaths()
        do {
            let own = freshKeyPath()
            probe = own
            #expect(table.withUnregistered(field: -1, { own }, { $0 }) === own)
            let other = freshKeyPath()
            #expect(table.withUnregistered(field: -1, { other }, { $0 }) === other)
        }
        #expect((0..<CanonicalKeyPaths.slotCount).allSatisfy { table.slots.key(at: $0) == 0 })
        #expect(probe == nil, "the table holds a key path of custom storage")
    }

    @Test func eachPropertyKeepsItsOwnKeyPath() {
        let table = CanonicalKeyPaths()
        let fields = [16, 24, 32, 16 + 8 * 16]  // The last shares the first's first slot to look in.
        let registered = fields.map { _ in freshKeyPath() }
        for (field, keyPath) in zip(fields, registered) { _ = table.canonical(keyPath, field: field) }
        for (field, keyPath) in zip(fields, registered) {
            #expect(table.withCanonical(field: field, { freshKeyPath() }, { $0 }) === keyPath)
        }
        let unregistered = freshKeyPath()
        #expect(table.canonical(unregistered, field: 24 + 8 * 16) === unregistered)
        #expect(table.canonical(freshKeyPath(), field: 24 + 8 * 16) === unregistered)
    }

    @Test func beyondSixteenPropertiesEachCallSiteKeepsItsOwnKeyPath() {
        let table = CanonicalKeyPaths()
        for index in 0..<16 { _ = table.canonical(freshKeyPath(), field: 8 * index) }
        let own = freshKeyPath()
        #expect(table.canonical(own, field: 8 * 16) === own)
        let other = freshKeyPath()
        #expect(table.withCanonical(field: 8 * 16, { other }, { $0 }) === other)
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

    @Test func threadsRacingToRegisterOnePropertyLeaveOneOfTheirKeyPaths() {
        for _ in 0..<200 {
            let box = TableBox()
            let given = (0..<4).map { _ in freshKeyPath() }
            let done = DispatchGroup()
            for keyPath in given {
                let sent = UncheckedSendable(keyPath)
                done.enter()
                Thread {
                    let reported = box.table.canonical(sent.value, field: 40)
                    box.append(given: sent.value, reported: reported)
                    done.leave()
                }.start()
            }
            done.wait()
            let stored = box.table.canonical(freshKeyPath(), field: 40)
            #expect(given.contains { $0 === stored })
            // Each thread reports the one stored, or its own while another thread's store is in progress.
            let reported = box.reported
            #expect(reported.count == 4)
            #expect(reported.allSatisfy { $0.reported === stored || $0.reported === $0.given })
            #expect(reported.contains { $0.given === stored && $0.reported === stored })
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

private final class TableBox: @unchecked Sendable {  // `reports` is guarded by `lock`
    let table = CanonicalKeyPaths()
    private let lock = NSLock()
    private var reports: [(given: AnyKeyPath, reported: AnyKeyPath)] = []

    /// What each thread gave and was given back.
    var reported: [(given: AnyKeyPath, reported: AnyKeyPath)] {
        lock.withLock { reports }
    }

    func append(given: AnyKeyPath, reported: AnyKeyPath) {
        lock.withLock { reports.append((given, reported)) }
    }
}

/// A key path handed to another thread: key path objects are immutable.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
