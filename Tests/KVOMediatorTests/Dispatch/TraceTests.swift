import Foundation
import KVOMediator
import Synchronization
import Testing

/// "Why did this fire?": `KVOTrace` reports each change with the registrations it runs and where they were
/// made, and `kvoDependencies(of:)` says what a key path reads. (One test at a time: a trace is the
/// process's; each test keeps only the entries of its own objects.)
@Suite(.serialized) struct TraceTests {
    /// Traces `body`, and returns the entries about `object`.
    private func trace(of object: AnyObject, _ body: () -> Void) -> [KVOTraceEntry] {
        let entries = Mutex<[KVOTraceEntry]>([])
        let name = "<\(type(of: object)): 0x\(String(UInt(bitPattern: ObjectIdentifier(object)), radix: 16))>"
        KVOTrace.start { entry in
            if entry.object == name { entries.withLock { $0.append(entry) } }
        }
        body()
        KVOTrace.stop()
        return entries.withLock { $0 }
    }

    @Test func aChangeIsReportedBeforeItsCallbacksRun() throws {
        let account = Ledger()
        let observer = TestObserver()
        let log = Mutex<[String]>([])
        observer.kvoController.observe(account, keyPath: \.balance) { _, _, _ in log.withLock { $0.append("callback") }
        }
        let token = try account.observe(\.available) { _, _ in }
        KVOTrace.start { entry in
            if entry.keyPath == "balance", entry.newValue == "10" { log.withLock { $0.append("trace") } }
        }
        account.balance = 10
        KVOTrace.stop()
        #expect(log.withLock { $0 } == ["trace", "callback"])
        withExtendedLifetime(token) {}
    }

    @Test func anEntrySaysWhatChangedAndWhoIsTold() throws {
        let account = Ledger()
        let observer = TestObserver()
        let line = #line + 1
        observer.kvoController.observe(account, keyPath: \.balance) { _, _, _ in }
        let token = try account.observe(\.available) { _, _ in }
        let entries = trace(of: account) { account.balance = 10 }
        let file = "KVOMediatorTests/TraceTests.swift"
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.keyPath == "balance")
        #expect(entry.oldValue == "0")
        #expect(entry.newValue == "10")
        #expect(entry.registrations.map(\.keyPath) == ["balance", "<computed from balance, pending>"])
        #expect(entry.registrations.map(\.observerType) == ["TestObserver", nil])
        #expect(entry.registrations.map(\.madeAt) == ["\(file):\(line)", "\(file):\(line + 1)"])
        #expect(
            entry.registrations.map(\.delivery) == ["block, on the changing thread", "token, on the changing thread"]
        )
        #expect(entry.description.hasPrefix("KVOTrace: <Ledger: 0x"))
        #expect(entry.description.contains(".balance: 0 → 10 (2 registrations)"))
        #expect(
            entry.description.contains(
                "  balance: TestObserver, made at \(file):\(line) (block, on the changing thread)"
            )
        )
        withExtendedLifetime(token) {}
    }

    @Test func anElementsRegistrationIsNamedByTheFormThatMadeIt() throws {
        let album = Album(["a"])
        let song = album.tracks[0]
        let observer = TestObserver()
        let line = #line + 1
        observer.kvoController.observe(album, each: \.tracks, keyPath: \.title) { _, _, _ in }
        let token = try album.observe(each: \.tracks, keyPath: \.title) { _, _ in }
        let entries = trace(of: song) { song.title = "A" }
        let file = "KVOMediatorTests/TraceTests.swift"
        let entry = try #require(entries.first)
        #expect(entries.count == 1)
        #expect(entry.registrations.map(\.observerType) == ["TestObserver", nil])
        #expect(entry.registrations.map(\.madeAt) == ["\(file):\(line)", "\(file):\(line + 1)"])
        #expect(
            entry.registrations.map(\.delivery) == ["block, on the changing thread", "token, on the changing thread"]
        )
        withExtendedLifetime(token) {}
    }

    @Test func nothingIsReportedOnceStopped() {
        let account = Ledger()
        let observer = TestObserver()
        observer.kvoController.observe(account, keyPath: \.balance) { _, _, _ in }
        let entries = Mutex(0)
        let name = "<Ledger: 0x\(String(UInt(bitPattern: ObjectIdentifier(account)), radix: 16))>"
        KVOTrace.start { entry in if entry.object == name { entries.withLock { $0 += 1 } } }
        #expect(KVOTrace.isTracing)
        KVOTrace.stop()
        #expect(!KVOTrace.isTracing)
        account.balance = 3
        #expect(entries.withLock { $0 } == 0)
    }

    @Test func aChangeAnnouncedByHandIsReportedWithItsNewValue() throws {
        let counter = Counter()
        let observer = TestObserver()
        observer.kvoController.observe(counter, keyPath: \.count) { _, _, _ in }
        let entries = trace(of: counter) { counter.incrementTwice() }
        let entry = try #require(entries.only)
        #expect(entry.keyPath == "count")
        #expect(entry.oldValue == nil)
        #expect(entry.newValue == "2")
        #expect(entry.description.contains(".count: announced by hand, now 2 (1 registration)"))
    }

    @Test func indexedAndSetChangesAnnouncedByHandAreReported() throws {
        let playlist = ManualPlaylist()
        let observer = TestObserver()
        let calls = CallCounter()
        observer.kvoController.observe(playlist, keyPath: \.songs) { _, _, _ in calls.increment() }
        observer.kvoController.observe(playlist, keyPath: \.tags) { _, _, _ in calls.increment() }
        let entries = trace(of: playlist) {
            playlist.willChange(.insertion, at: IndexSet(integer: 0), for: \.songs)
            playlist.songs = ["s"]
            playlist.didChange(.insertion, at: IndexSet(integer: 0), for: \.songs)
            playlist.willChange(.union, using: ["t"], for: \.tags)
            playlist.tags = ["t"]
            playlist.didChange(.union, using: ["t"], for: \.tags)
        }
        #expect(calls.count == 2)
        #expect(entries.map(\.keyPath) == ["songs", "tags"])
        #expect(entries.map(\.newValue) == [#"["s"]"#, #"Set(["t"])"#])
        #expect(entries.map(\.registrations.count) == [1, 1])
    }

    @Test func aComputedPropertyAnnouncedByHandIsOneEntryNamedByWhatItReads() throws {
        let person = Person()
        let observer = TestObserver()
        observer.kvoController.observe(person, keyPath: \.displayName) { _, _, _ in }
        let entries = trace(of: person) {
            person.willChangeValue(for: \.displayName)
            person.didChangeValue(for: \.displayName)
        }
        let entry = try #require(entries.only)
        #expect(entry.keyPath == "<computed from usesNickname, name>")
        #expect(entry.newValue == #""Ada""#)
        #expect(entry.registrations.count == 1)
    }

    @Test func setsInsideATransactionAreEachReported() {
        let account = Ledger()
        let observer = TestObserver()
        observer.kvoController.observe(account, keyPath: \.balance) { _, _, _ in }
        let entries = trace(of: account) {
            withKVOTransaction {
                account.balance = 1
                account.balance = 2
                account.balance = 3
            }
        }
        #expect(entries.map { [$0.oldValue, $0.newValue] } == [["0", "1"], ["1", "2"], ["2", "3"]])
    }

    @Test func dependenciesNameWhatAKeyPathReadsNow() {
        let person = NamedPerson()
        #expect(person.kvoDependencies(of: \.fullName) == ["NamedPerson.firstName", "NamedPerson.lastName"])
        let account = Ledger()
        #expect(account.kvoDependencies(of: \.owner?.name) == ["Ledger.owner"])
        account.owner = LedgerOwner("Ada")
        #expect(account.kvoDependencies(of: \.owner?.name) == ["Ledger.owner", "LedgerOwner.name"])
        #expect(account.kvoDependencies(of: \.available) == ["Ledger.balance", "Ledger.pending"])
        // Declared dependencies, as the object's own class declares them; custom storage by its type's name
        // for it, if it gives one.
        #expect(
            DeclaringHolder(DeclaringSub()).kvoDependencies(of: \.link.total) == [
                "DeclaringHolder.link", "DeclaringSub.<custom storage>", "DeclaringSub.second",
            ]
        )
        #expect(
            DeclaringHolder(DeclaringBase()).kvoDependencies(of: \.link.total) == [
                "DeclaringHolder.link", "DeclaringBase.<custom storage>", "DeclaringBase.first",
            ]
        )
        #expect(Thermometer().kvoDependencies(of: \.celsius) == ["Thermometer.<custom storage>"])
        #expect(person.kvoDependencies(of: \.firstName) == ["NamedPerson.firstName"])
    }

    @Test func aKeyPathThatReadsNothingObservableDependsOnNothing() {
        #expect(Circle().kvoDependencies(of: \.plainTag).isEmpty)
    }
}
