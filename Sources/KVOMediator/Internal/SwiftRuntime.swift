// The only file that imports the shim, and internally: clients never see its C declarations. The
// getters of `@Observed` properties, inlined into clients, reach the two variables they ask through
// out-of-line functions (`_trackersRunning()`): a call per read where a public import gave one load.
internal import KVORuntimeShims

#if canImport(ObjectiveC)
import ObjectiveC
#endif

/// The one file that calls the Swift runtime, the kernel and the shim's C variables directly (through
/// the C declarations of `KVORuntimeShims`); everything else calls these.
///
/// Where the rest of the unsafe code lives, each with its reason (`Scripts/engine-room-exceptions.txt`
/// lists every file; `Scripts/check-layers.py` keeps the list from growing):
/// - `ObjectPin`: an observed object (and an observer) held by its memory, loaded by a try-retain:
///   weak in effect, without a side table per object.
/// - `Unretained`: a dependency's registrar and a registration's root registrar, held with no retain,
///   used only under the registration's lock or gate, which keep them alive; a call that may outlive
///   that takes a retain first.
/// - `Lock.swift`: `LockProtected` (state only its own lock reaches: a controller's table, the
///   key-path and class-layout tables, the direct-slot cache) and `GuardedFields` (the base of an
///   internal class whose fields one lock or one thread guards: an evaluation's tracker, a
///   registration's `Extras`), each `@exclusivity(unchecked)` once; `KVORegistrar`, `KVOInfo` and
///   `ThreadContext` still mark such fields themselves.
/// - `Addresses`: `FieldAddress` (an object and a field's offset as an address, for the setters, a
///   property's read and set by name, `KeyPathComponents`' read of a key path object's buffer, and a
///   chain's leaf), `ObjectAddress` (a chain's objects and registrars walked with no retain, and the
///   object a set is on), `ValueAddress` (a set's old and new values, a record on the stack, a value
///   read again, lent for a call), `ValueRoom` (where a compiled reading puts its value) and
///   `TrivialValueBytes` (a computed property's last value, kept as words); and a storage's offset
///   from its key path (`_storageOffset`).
/// - `KnownClass`: a reference, or a value, given back as the class or type its caller knows it is.
/// - `StripedLocks` (in `Lock.swift`): locks held unmanaged, so that taking one does no reference
///   counting.
/// - `ThreadContext`: the installed tracker held unmanaged, alive for as long as the method that
///   installed it runs; the context itself is found through a C thread-local variable of
///   `KVORuntimeShims` (a load, not a call).
/// - `OnceReference` and `OnceSlots` (in one file: the Observation bridge's key paths, the
///   class-layout cache): objects stored once as retained bits in atomics, read with no reference
///   counting.
/// - The public `context:` of ``KeyValueObserving`` (and `KVOController`'s `observe` that takes it):
///   Cocoa's opaque pointer, passed through and never dereferenced.
@usableFromInline
enum SwiftRuntime {
    /// Retains the native Swift object at `object` unless it has started deinitialising.
    @usableFromInline
    static func tryRetain(_ object: UnsafeMutableRawPointer) -> Bool {
        kvo_try_retain(object)
    }

    /// Whether `type` is an existential (a protocol, a composition, `Any`, `AnyObject`): a value of it may
    /// be of any type that conforms, a class or not, which only a value can tell.
    static func isExistential(_ type: Any.Type) -> Bool {
        kvo_is_existential(unsafeBitCast(type, to: UnsafeRawPointer.self))
    }

    /// Whether `object` has started deinitialising (its weak references already read nil), with no
    /// retain. Only a native Swift object can tell: an Objective-C one (where there is a runtime for
    /// them) has no Swift reference counts to read, and is taken as not deinitialising.
    static func isDeinitialising(_ object: AnyObject) -> Bool {
        #if canImport(ObjectiveC)
        if object is NSObject { return false }
        #endif
        return kvo_is_deinitialising(Unmanaged.passUnretained(object).toOpaque())
    }

    /// Keeps the memory of the native Swift object at `object` allocated (its unowned count) until
    /// ``unpin(_:)``; its deinit still runs when its last strong reference goes.
    static func pin(_ object: UnsafeMutableRawPointer) {
        kvo_pin(object)
    }

    /// Ends a ``pin(_:)``.
    static func unpin(_ object: UnsafeMutableRawPointer) {
        kvo_unpin(object)
    }

    /// Whether a tracker may be installed on this thread (the shim's count of running trackers: this
    /// thread's with glibc, every thread's elsewhere), asked through ``_trackersRunning()``.
    @inlinable
    @inline(__always)
    static var trackersRunning: Bool {
        _trackersRunning()
    }

    /// Counts a tracker starting (1) or ending (-1) on this thread.
    @inline(__always)
    static func addTrackers(_ delta: Int) {
        kvo_trackers_add(delta)
    }

    /// Whether this thread makes one of the library's own reads now (a thread-local C variable), asked
    /// through ``_isReadingForLibrary()``.
    @inlinable
    @inline(__always)
    static var isReadingForLibrary: Bool {
        _isReadingForLibrary()
    }

    /// Counts one of the library's own reads starting (1) or ending (-1) on this thread.
    @inline(__always)
    static func addLibraryReads(_ delta: Int) {
        kvo_library_reads_add(delta)
    }

    /// This thread's context (`ThreadContext`), as an opaque pointer: a thread-local C variable, one load.
    @inline(__always)
    static var threadContext: UnsafeMutableRawPointer? {
        get { kvo_thread_context() }
        set { kvo_set_thread_context(newValue) }
    }

    /// Takes this thread's gate pass into `registration`'s gate (see ``GatePasses``), unless it holds one.
    @inline(__always)
    static func takeGatePass(_ registration: AnyObject) -> Bool {
        kvo_pass_take(UInt(bitPattern: ObjectIdentifier(registration)))
    }

    /// Starts giving this thread's gate pass into `registration`'s gate back (see ``GatePasses``).
    @inline(__always)
    static func markGatePassLeaving(_ registration: AnyObject) {
        kvo_pass_leaving(UInt(bitPattern: ObjectIdentifier(registration)))
    }

    /// Gives this thread's gate pass back.
    @inline(__always)
    static func giveGatePassBack() {
        kvo_pass_give_back()
    }

    /// Which threads hold a gate pass into `registration`'s gate.
    static func gatePassHolders(_ registration: AnyObject) -> GatePasses.Holders {
        GatePasses.Holders(rawValue: UInt8(kvo_pass_holders(UInt(bitPattern: ObjectIdentifier(registration)))))
    }

    /// Turns gate passes on for the process, if the kernel can; false if not.
    static func enableGatePasses() -> Bool {
        kvo_passes_enable()
    }

    /// Gives this thread a gate pass word (false if none is free), or frees it.
    static func claimGatePassWord() -> Bool {
        kvo_pass_claim_word()
    }

    static func freeGatePassWord() {
        kvo_pass_free_word()
    }

    /// A full memory barrier on every thread of the process.
    static func processBarrier() {
        kvo_process_barrier()
    }

    #if canImport(Glibc) || canImport(Musl)
    /// Sleeps while the 32-bit word at `word` holds `expected`, or until woken (maybe spuriously).
    static func wait(on word: UnsafeRawPointer, whileItHolds expected: UInt32) {
        kvo_futex_wait(UnsafeMutableRawPointer(mutating: word).assumingMemoryBound(to: UInt32.self), expected)
    }

    /// Wakes one thread sleeping on the word at `word`.
    static func wakeOne(on word: UnsafeRawPointer) {
        kvo_futex_wake_one(UnsafeMutableRawPointer(mutating: word).assumingMemoryBound(to: UInt32.self))
    }
    #endif
}

/// The shim's count of running trackers, not zero. Out of line: the getters that ask are inlined into
/// clients, and inlinable code may not name a module imported internally. A free function, not a static
/// one: the optimiser drops a static function's unused metatype and leaves a thunk at its symbol, which
/// every inlined getter would call through (four instructions more per read).
@usableFromInline
@inline(never)
func _trackersRunning() -> Bool {
    kvo_trackers_running() != 0
}

/// Whether this thread makes one of the library's own reads now, out of line as `_trackersRunning()`.
@usableFromInline
@inline(never)
func _isReadingForLibrary() -> Bool {
    kvo_is_reading_for_library()
}
