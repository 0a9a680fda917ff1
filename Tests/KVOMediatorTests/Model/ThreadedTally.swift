import Foundation
import KVOMediator
import Synchronization

/// What one registration of a threaded run received, and the window it was live in, measured by the
/// write sequence numbers of the property it observes (its channel):
/// - `c0`: writes completed before `observe` was called: never delivered;
/// - `s1`: writes started before `observe` returned: delivered or not;
/// - `e0`: writes completed before the end (`unobserve`, `invalidate`…) was called: with `s1`, the
///   writes that must be delivered, exactly once;
/// - `e1`: writes started before the end returned: any later one is never delivered.
///
/// Registrations of a property without one channel (`pick`, the chain) are checked loosely: nothing
/// after their end, no deinitialising observer, and their `.initial` record.
final class ThreadedTally: @unchecked Sendable {  // records are guarded by `lock`; windows are
    // written by the registering thread before the run's threads are joined, and read after.
    let name: String
    let channel: Channel?
    let options: KVOOptions
    /// Made by the thread that writes what it observes: its `.initial` record arrives inside `observe`.
    let countsInitial: Bool
    /// Ignored by its controller (an earlier registration of the same object and key wins).
    var isIgnored = false
    var c0 = 0
    var s1 = 0
    var e0 = Int.max
    var e1 = Int.max
    let registering = Atomic<Bool>(true)
    let ended = Atomic<Bool>(false)
    private let lock = NSLock()
    private var sequence: [Int] = []
    private var initials = 0
    private var problems: [String] = []

    init(name: String, channel: Channel?, options: KVOOptions, countsInitial: Bool) {
        self.name = name
        self.channel = channel
        self.options = options
        self.countsInitial = countsInitial
        c0 = channel?.completed.load(ordering: .acquiring) ?? 0
    }

    /// `observe` returned.
    func didRegister() {
        s1 = channel?.started.load(ordering: .acquiring) ?? 0
        registering.store(false, ordering: .releasing)
    }

    /// The end (unobserve, invalidate, a dropped controller or token) is about to be called.
    func willEnd() {
        e0 = channel?.completed.load(ordering: .acquiring) ?? 0
    }

    /// The end returned: from now on no callback may start.
    func didEnd() {
        e1 = channel?.started.load(ordering: .acquiring) ?? 0
        ended.store(true, ordering: .releasing)
    }

    /// A callback: `value` is the record's new value.
    func receive(_ value: ModelValue?, isPrior: Bool, observer: ModelObserver?, journal: ThreadedJournal) {
        var problem: String?
        if ended.load(ordering: .acquiring) { problem = "\(name) was called after its end returned" }
        if let observer, journal.isDeinitialising(observer.id) {
            problem = "\(name) called observer \(observer.id), which was deinitialising"
        }
        let isInitial = countsInitial && registering.load(ordering: .acquiring)
        lock.withLock {
            if let problem { problems.append(problem) }
            if isInitial {
                initials += 1
            } else if !isPrior, channel != nil {
                sequence.append(value.flatMap(Self.sequenceNumber) ?? -1)
            }
        }
    }

    /// The write sequence number a record's new value carries.
    static func sequenceNumber(_ value: ModelValue) -> Int? {
        switch value {
        case .int(let number): number
        case .list(let numbers): numbers.last
        case .bag(let numbers): numbers.max()
        case .text(let text): Int(text.dropFirst())  // "L<n>", the summary of a level
        case .null: nil
        }
    }

    /// How many writes this registration had to receive.
    var requiredWrites: Int {
        channel == nil || isIgnored || e0 == .max ? 0 : max(0, e0 - s1)
    }

    /// What this registration received that the rules forbid (checked after the threads are joined).
    func violations() -> [String] {
        let (sequence, initials, problems) = lock.withLock { (self.sequence, self.initials, self.problems) }
        var found = problems
        if isIgnored {
            if !sequence.isEmpty || initials != 0 { found.append("\(name) was ignored but received records") }
            return found
        }
        if countsInitial && initials != (options.contains(.initial) ? 1 : 0) {
            found.append("\(name) received \(initials) initial records")
        }
        guard channel != nil else { return found }
        if zip(sequence, sequence.dropFirst()).contains(where: { $0 >= $1 }) {
            found.append("\(name) received writes twice or out of order: \(sequence.suffix(20))")
        }
        if let outside = sequence.first(where: { $0 <= c0 || $0 > e1 }) {
            found.append("\(name) received write \(outside), outside its window (\(c0), \(e1)]")
        }
        if s1 < e0 {
            let received = Set(sequence)
            let missing = (s1 + 1...e0).filter { !received.contains($0) }
            if !missing.isEmpty {
                found.append("\(name) missed \(missing.count) writes of (\(s1), \(e0)], first \(missing.prefix(5))")
            }
        }
        return found
    }
}

/// The threaded runs' sink: which observers are deinitialising, every tally, routes of the delegate
/// form, and the problems found in callbacks.
final class ThreadedJournal: ModelDelegateSink, @unchecked Sendable {  // all state is guarded by `lock`
    private let lock = NSLock()
    private var deinitialising: Set<Int> = []
    private var tallies: [ThreadedTally] = []
    private var routes: [Int: ThreadedTally] = [:]
    private var weakReferences: [(String, WeakBox)] = []
    private var reported: [String] = []

    func problem(_ message: String) {
        lock.withLock { reported.append(message) }
    }

    /// Problems reported outside any tally (errors, failed registrations).
    var problems: [String] {
        lock.withLock { reported }
    }

    func add(_ tally: ThreadedTally) {
        lock.withLock { tallies.append(tally) }
    }

    /// Routes the delegate records of one call (`context` is its number) to its only key path's tally.
    func route(context: Int, to tally: ThreadedTally) {
        lock.withLock { routes[context] = tally }
    }

    /// Follows an object, observer or controller, to check that everything is released at the end.
    func track(_ object: AnyObject, as name: String) {
        let box = WeakBox(object)
        lock.withLock { weakReferences.append((name, box)) }
    }

    /// What `track` followed that is still alive.
    var survivors: [String] {
        lock.withLock { weakReferences.filter { $0.1.object != nil }.map(\.0) }
    }

    var allTallies: [ThreadedTally] {
        lock.withLock { tallies }
    }

    func isDeinitialising(_ observer: Int) -> Bool {
        lock.withLock { deinitialising.contains(observer) }
    }

    func observerDeinitialises(_ id: Int) {
        lock.withLock { _ = deinitialising.insert(id) }
    }

    func delegateDelivered(
        to observer: ModelObserver,
        keyPath: AnyKeyPath,
        of object: AnyObject,
        change: KVOChange<Any>,
        context: UnsafeMutableRawPointer?
    ) {
        let tally = lock.withLock { routes[Int(bitPattern: context)] }
        tally?.receive(
            change.newValue.flatMap { ModelValue(any: $0) },
            isPrior: change.isPrior,
            observer: observer,
            journal: self
        )
    }
}
