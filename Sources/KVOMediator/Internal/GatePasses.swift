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
/// clear it when done: two plain stores. A thread has one pass: a set inside such a callback enters
/// through the count. Whoever must know whether a callback is in flight (a canceller that waits, one
/// that leaves the release to the last thread out, that last thread) reads the count and every thread's
/// pass (unless no thread ever took a pass into that gate, which the registration notes before the first
/// is taken).
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
/// - A thread giving its pass back reads the gate after clearing it, and one that finds a pass of another
///   thread where it must decide who releases runs the barrier before reading the passes again: either
///   it sees the pass given back, or the thread giving it back sees that the release is left to it.
///
/// The barrier costs a system call, on the rare paths only: a canceller inside a callback while another
/// thread runs a callback of the same registration through its pass, and a second canceller while the
/// first has not finished. Without the barrier (not Linux with glibc, an older kernel, a sandbox that
/// refuses it, the Apple path) no pass is taken and every callback counts in the gate. `KVO_MEDIATOR_GATE_PASSES=off` in the environment turns them off
/// too, for tests: a pass changes how fast a callback enters, never what is delivered.
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
        /// Another thread (what it reads may be a pass given back a moment ago: see `GatePasses`).
        static let otherThread = Holders(rawValue: 2)
    }

    /// Gives the thread whose context is being made a pass word, if passes are on (a thread with none
    /// counts every callback in the gate).
    static func claimWordForThisThread() {
        if areOn { _ = SwiftRuntime.claimGatePassWord() }
    }
}
