#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Gate passes: how a notification enters a registration's gate with no atomic operation.
///
/// A registration's gate (``RegistrationGate``) counts the callbacks in flight, so that a canceller can
/// wait for them and nothing releases the callbacks under them: an atomic add to enter and one to leave.
/// A set of a property with one registration that takes the setter's values (a direct one, or a typed
/// chain whose leaf it is) finds it under its registrar's lock, and there it may instead write the
/// registration's address into its thread's pass word (one per thread, readable by every thread), and
/// clear it when done: two plain stores (`KVORegistrar.enterUnlocking`). So may a proxy's mutation of an
/// `@Observed` array whose one registration takes its kind (`KVORegistrar.observers(ofCollectionAt:…)`).
/// A thread has one pass: a set inside such a callback enters through the count. Whoever must know whether a
/// callback is in flight (a canceller that waits, one that leaves the release to the last thread out, that
/// last thread) reads the count and every thread's pass (unless no thread ever took a pass into that gate,
/// which the registration notes before the first is taken).
///
/// Why a canceller cannot miss a pass:
/// - A pass is taken under a registrar's lock, and only while its table lists the registration. The first
///   canceller takes each such lock to take the registration off each table (every table that lists it is
///   among its dependencies, which change only under the registration's lock), after cancelling; so a
///   pass taken before is seen by its reads, and none is taken after. (A registrar it cannot retain is
///   deinitialising: its object is gone, and no set of it runs.)
/// - A later canceller (the registration was already cancelled by a thread that may still be unsubscribing
///   it; a dying root's teardown too) runs a process-wide barrier (Linux's `membarrier`) between cancelling
///   and reading the passes, and the thread that takes a pass reads the gate after writing it: one of the
///   two sees the other.
/// - A thread gives its pass back in two stores: first it marks its word as leaving (the address with
///   the low bit set) and reads the gate, then it clears the word, after which it never touches the
///   registration. Whoever would release the registration waits for a leaving word to change, so the
///   thread still reading the gate is never released under.
/// - The release a canceller inside a callback leaves to the last thread out is only ever claimed by a
///   thread counted in, in the atomic step that counts it out. The canceller counts itself in to leave it;
///   a thread giving its pass back that finds it left counts itself in (and marks the gate that it did)
///   before clearing its word. The last one counted in clears that mark, reads the passes, and claims
///   the release only if none is held: a pass of another thread it reads again after the barrier (either
///   it reads as given back, or its holder reads the gate after the barrier and finds the release left
///   to it), and a leaving word it waits for. A pass traded for a count after its read leaves the mark, so
///   its step fails and it reads them again.
///
/// The barrier costs a system call, on the rare paths only: a canceller inside a callback while another
/// thread runs a callback of the same registration through its pass, and a second canceller while the
/// first has not finished. Without the barrier (not Linux with glibc, an older kernel, a sandbox that
/// refuses it, the Apple path) no pass is taken and every callback counts in the gate.
/// `KVO_MEDIATOR_GATE_PASSES=off` in the environment turns them off too, for tests: a pass changes how
/// fast a callback enters, never what is delivered.
enum GatePasses {
    /// Whether this process takes passes (decided once, when the first thread context is made).
    static let areOn: Bool = {
        #if KVOMEDIATOR_APPLE_PATH
        return false
        #else
        if let value = getenv("KVO_MEDIATOR_GATE_PASSES"), String(cString: value) == "off" { return false }
        return SwiftRuntime.enableGatePasses()
        #endif
    }()

    /// Which threads hold a pass into one registration's gate.
    struct Holders: OptionSet {
        let rawValue: UInt8
        /// The thread that asks.
        static let thisThread = Holders(rawValue: 1)
        /// Another thread, in a callback (or about to find the registration cancelled).
        static let otherThread = Holders(rawValue: 2)
        /// Another thread giving its pass back: it still reads the gate, so whoever would release the
        /// registration waits for it.
        static let otherLeaving = Holders(rawValue: 4)
    }

    /// Gives the thread whose context is being made a pass word, if passes are on (a thread with none
    /// counts every callback in the gate).
    static func claimWordForThisThread() {
        if areOn { _ = SwiftRuntime.claimGatePassWord() }
    }
}
