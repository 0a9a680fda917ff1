import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Per-thread state: the active access tracker, how deep this thread is in callbacks, and the
/// manual `willChangeValue(for:)` calls still waiting for their `didChangeValue(for:)`.
///
/// Only its own thread touches it, so its properties skip the runtime exclusivity checks. It names no
/// type of a layer above this one: what it holds for them (the tracker, the pending manual changes) is
/// held as an object, which the layer that stores it gets back as its own type (`KnownClass`).
final class ThreadContext {
    /// Receives the accesses that `@Observed` getters and `accessValue(for:)` report (an `AccessTracker`);
    /// nil when not tracking. Unretained: only `ReadRecorder.run` installs one (a tracker or a probe), for the run of its own
    /// method, and whoever takes it off puts it back within that run (a read then reports with no retain
    /// and release).
    @exclusivity(unchecked) private var installedTracker: Unmanaged<AnyObject>?

    /// Installs `tracker` (nil for none), returning the one it replaces, to be put back the same way:
    /// no reference counting of either.
    @inline(__always)
    private func swapTracker(_ tracker: Unmanaged<AnyObject>?) -> Unmanaged<AnyObject>? {
        defer { installedTracker = tracker }
        return installedTracker
    }

    /// Runs `body` with `tracker` installed on this thread (`nil`: with none), then puts back the one it
    /// replaced. Unretained: the caller keeps `tracker` alive for the call.
    @inline(__always)
    static func withTracker<Result>(_ tracker: AnyObject?, _ body: () throws -> Result) rethrows -> Result {
        let context = currentUnmanaged
        let installing = tracker.map { Unmanaged.passUnretained($0) }
        let previous = context._withUnsafeGuaranteedRef { $0.swapTracker(installing) }
        defer { _ = context._withUnsafeGuaranteedRef { $0.swapTracker(previous) } }
        return try body()
    }

    /// Runs `body`, a callback into user code, on this thread: with no tracker installed while it runs
    /// (its reads are not an evaluation's), counted in the thread's delivery depth.
    @inline(__always)
    static func runningCallback(_ body: () -> Void) {
        withCurrent { context in
            let tracker = context.installedTracker
            if tracker != nil { _ = context.swapTracker(nil) }
            context.deliveryDepth += 1
            body()
            context.deliveryDepth -= 1
            if tracker != nil { _ = context.swapTracker(tracker) }
        }
    }

    /// An idle tracker kept for the next evaluation on this thread (see `AccessTracker.reused`).
    @exclusivity(unchecked) var spareTracker: AnyObject?
    /// Room for a value a compiled reading reads (see `TypedKVOInfo.read(_:by:)`): `readingRoomSize`
    /// bytes, aligned to 16. One per thread is enough: a reading writes its value only once the getters
    /// it calls have returned (any reading they caused on this thread included), and the value is moved
    /// out at once.
    let readingRoom = ValueRoom.allocate(size: readingRoomSize, alignment: 16)
    static let readingRoomSize = 64

    deinit {
        readingRoom.deallocate()
        transactionState?.release()
        spare?.release()
    }

    /// How many callbacks this thread is running right now (nested callbacks count each).
    @exclusivity(unchecked) var deliveryDepth = 0
    /// The epoch of the queued delivery (to a queue or the main actor) this thread runs, 0 when none: a
    /// delivery it queues meanwhile is a cascade of that epoch (see `CascadedDeliveries`).
    @exclusivity(unchecked) var queuedDeliveryEpoch: UInt32 = 0
    /// This thread's transaction state (a `TransactionChanges`, see `withKVOTransaction`), kept between
    /// transactions once made; `inTransaction` says whether one runs.
    var transaction: AnyObject? {
        get { transactionState?.takeUnretainedValue() }
        set {
            transactionState?.release()
            transactionState = newValue.map { Unmanaged.passRetained($0) }
        }
    }
    /// `transaction`, retained by hand, so that `withTransaction` lends it with no reference counting.
    @exclusivity(unchecked) private var transactionState: Unmanaged<AnyObject>?
    @exclusivity(unchecked) var inTransaction = false
    /// Whether this thread's transaction has deferred a record yet: until it has, no registration can have
    /// deferred one, and a set need not ask its slot's registrations (see `KVORegistrar.changeInTransaction`).
    @exclusivity(unchecked) var transactionDeferredAny = false

    /// Calls `body` with this thread's transaction state (a `T`: see `transaction`) while the thread runs
    /// a transaction, with no reference counting; nil when it runs none.
    @inline(__always)
    static func withTransaction<T: AnyObject, Result>(as _: T.Type, _ body: (T) -> Result) -> Result? {
        guard let pointer = SwiftRuntime.threadContext else { return nil }
        let state = Unmanaged<ThreadContext>.fromOpaque(pointer)._withUnsafeGuaranteedRef { context in
            context.inTransaction ? context.transactionState : nil
        }
        return state?._withUnsafeGuaranteedRef { body(KnownClass.cast($0, to: T.self)) }
    }

    /// Calls `body` with this thread's transaction state (a `T`), made by `make` if there is none yet,
    /// whether or not a transaction runs, with no reference counting.
    @inline(__always)
    func withTransactionState<T: AnyObject, Result>(as _: T.Type, make: () -> T, _ body: (T) -> Result) -> Result {
        if transactionState == nil { transaction = make() }
        return transactionState.unsafelyUnwrapped._withUnsafeGuaranteedRef { body(KnownClass.cast($0, to: T.self)) }
    }
    /// Stamps this thread hands out (`nextStamp()`): its own range of a process-wide space, so that no two
    /// stamps are equal without any thread contending for a shared count.
    @exclusivity(unchecked) private var lastStamp =
        ThreadContext.threadsMade.wrappingAdd(1, ordering: .relaxed).newValue << 32
    private static let threadsMade = Atomic<UInt64>(0)

    /// A number no other call, on any thread, returns (until this thread has made 2^32 of them).
    @inline(__always)
    func nextStamp() -> UInt64 {
        lastStamp &+= 1
        return lastStamp
    }

    /// The number of the place the registrations this thread makes now come from (see
    /// `_RegistrationSites`; 0: unknown).
    @exclusivity(unchecked) var registrationSite: UInt16 = 0
    /// The last site this thread looked up, by its key's words, and its number: an `observe` call made again
    /// (in a loop, a cell's reuse) finds its number with no lock and no hash.
    @exclusivity(unchecked) var lastSite: (file: UInt, line: UInt, observer: UInt, form: UInt8, number: UInt16) =
        (0, 0, 0, 0, 0)
    /// The byte offset of the `@Observed` property whose set this thread's transaction is announcing (-1:
    /// none): where the new value of a direct registration it defers will be (see `TransactionChanges`).
    @exclusivity(unchecked) var transactionSetField = -1
    /// A slot whose every registration this thread's transaction has deferred already, with the
    /// registrar's registration count then: sets of it need tell nobody until the transaction ends
    /// (see `KVORegistrar.storesQuietly(field:)`). Nil outside a transaction, and while a weak referent's
    /// death is announced.
    @exclusivity(unchecked) var quietSlot: (registrar: ObjectIdentifier, field: Int, version: UInt64)?
    /// The delivery depth at which this thread announces a weak referent's death (-1: none): a change
    /// whose old value cannot be read any more, which `.distinct` must not take for no change.
    @exclusivity(unchecked) var deathAnnouncedAtDepth = -1
    /// Manual will-change announcements waiting for their did-change (`pendingManualChanges`, beside
    /// `ManualChange`); nil until the first.
    @exclusivity(unchecked) var manualChanges: AnyObject?
    /// The `IndexSet` of one index last made on this thread for a record's `indexes` (see
    /// `_SingleIndexSets`): the records of one mutation, and of a mutation at the same place again (an
    /// append and a `removeLast`), share it. An accelerator only: an `IndexSet` is a value.
    @exclusivity(unchecked) var lastSingleIndexSet: (index: Int, set: IndexSet)?
    /// An object kept for this thread's next use of one of its class (see `_ThreadSpare`): an empty array for
    /// the next one-element record of a proxy mutation (`_OneElementArray`). An accelerator only.
    @exclusivity(unchecked) var spare: Unmanaged<AnyObject>?
    /// Whether a use has taken `spare`, and whether the last use went without it (see `_ThreadSpare`).
    @exclusivity(unchecked) var spareInUse = false
    @exclusivity(unchecked) var spareWentWithout = false
    /// The registrar whose sets are being announced by a collection mutation, not by the setter.
    var suppressedRegistrar: ObjectIdentifier?
    #if DEBUG
    /// How many observation tokens this thread has made (see `KVOObservation.reportIfDiscarded`).
    var tokensMade: UInt64 = 0
    /// The levels of the locks this thread holds, innermost last (see `LockOrder`).
    var heldLockLevels: [LockLevel] = []
    #endif

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        #if canImport(Darwin)
        let status = pthread_key_create(&key) { pointer in
            SwiftRuntime.threadContext = nil
            SwiftRuntime.freeGatePassWord()
            Unmanaged<ThreadContext>.fromOpaque(pointer).release()
        }
        #else
        let status = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            // (As the key's value already is: a use after this makes a new context.)
            SwiftRuntime.threadContext = nil
            SwiftRuntime.freeGatePassWord()
            Unmanaged<ThreadContext>.fromOpaque(pointer).release()
        }
        #endif
        precondition(status == 0, "KVOMediator: pthread_key_create failed (\(status))")
        return key
    }()

    /// This thread's context, created on first use.
    static var current: ThreadContext {
        currentUnmanaged.takeUnretainedValue()
    }

    /// This thread's context, created on first use, unretained: the thread's key holds it until the
    /// thread ends, so `_withUnsafeGuaranteedRef` uses it with no reference counting.
    /// (Always inlined, the first use out of line: with that inlined too, a callback's lookup was a
    /// call of 18 instructions.)
    @inline(__always)
    static var currentUnmanaged: Unmanaged<ThreadContext> {
        if let pointer = SwiftRuntime.threadContext {
            return Unmanaged<ThreadContext>.fromOpaque(pointer)
        }
        return makeCurrent()
    }

    /// Calls `body` with this thread's context (created on first use), with no reference counting: the
    /// thread's key holds it until the thread ends.
    @inline(__always)
    static func withCurrent<Result>(_ body: (ThreadContext) throws -> Result) rethrows -> Result {
        try currentUnmanaged._withUnsafeGuaranteedRef(body)
    }

    @inline(never)
    private static func makeCurrent() -> Unmanaged<ThreadContext> {
        let context = Unmanaged.passRetained(ThreadContext())
        pthread_setspecific(key, context.toOpaque())
        SwiftRuntime.threadContext = context.toOpaque()
        GatePasses.claimWordForThisThread()
        return context
    }

    /// Runs `body`, the announcement of a weak referent's death, marked as such for the records it
    /// delivers at this depth (not for those of changes made inside their callbacks).
    static func announcingDeath(_ body: () -> Void) {
        withCurrent { context in
            let saved = (context.deathAnnouncedAtDepth, context.quietSlot)
            context.deathAnnouncedAtDepth = context.deliveryDepth
            // (No set is quiet meanwhile: each of the death's is noted as one, whatever it sets.)
            context.quietSlot = nil
            body()
            (context.deathAnnouncedAtDepth, context.quietSlot) = saved
        }
    }

    /// Whether this thread is delivering a weak referent's death (see `announcingDeath`).
    static var isAnnouncingDeath: Bool {
        currentSays { $0.deathAnnouncedAtDepth == $0.deliveryDepth }
    }

    /// Whether this thread runs a transaction (see `withKVOTransaction`), its changes' deliveries deferred.
    @inline(__always)
    static var isInTransaction: Bool {
        ThreadModes.running.load(ordering: .relaxed) != 0 && currentSays { $0.inTransaction }
    }

    /// Whether this thread has a tracker installed, with no reference counting.
    static var isTracking: Bool {
        currentSays { $0.installedTracker != nil }
    }

    /// What `question` says of this thread's context, with no reference counting; false when the
    /// thread has none yet.
    @inline(__always)
    static func currentSays(_ question: (ThreadContext) -> Bool) -> Bool {
        guard let pointer = SwiftRuntime.threadContext else { return false }
        return Unmanaged<ThreadContext>.fromOpaque(pointer)._withUnsafeGuaranteedRef(question)
    }

    /// Runs `body` with this thread's tracker, if it has one (installed as a `Tracker`), with no
    /// reference counting of it or of the context.
    @inline(__always)
    static func withCurrentTracker<Tracker: AnyObject>(as _: Tracker.Type, _ body: (Tracker) -> Void) {
        guard let pointer = SwiftRuntime.threadContext else { return }
        let installed = Unmanaged<ThreadContext>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.installedTracker }
        installed?._withUnsafeGuaranteedRef { body(KnownClass.cast($0, to: Tracker.self)) }
    }

    /// This thread's context if it has one; never allocates.
    static var currentIfPresent: ThreadContext? {
        guard let pointer = SwiftRuntime.threadContext else { return nil }
        return Unmanaged<ThreadContext>.fromOpaque(pointer).takeUnretainedValue()
    }
}

/// Runs `body` as one of the library's own reads (an `.initial` value, an old value, a leaf check): no
/// tracker records it, and a class that bridges to Swift's Observation does not report it there, so that
/// observing inside `withObservationTracking` adds nothing to what that closure depends on.
@usableFromInline
func untracked<Result>(_ body: () -> Result) -> Result {
    SwiftRuntime.addLibraryReads(1)
    defer { SwiftRuntime.addLibraryReads(-1) }
    guard ThreadContext.isTracking else { return body() }
    return ThreadContext.withTracker(nil, body)
}

/// How many threads are in a mode that changes what a set of an observed property does: a collection
/// mutation writing through a property's setter (which it announces itself), or a transaction (which
/// defers deliveries). A set asks its thread which, only while this is not 0: one load on every
/// notification, for both.
enum ThreadModes {
    static let running = Atomic<Int>(0)
}
