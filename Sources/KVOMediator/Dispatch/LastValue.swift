/// The value a re-evaluating registration last delivered (or read when it started): the old value of its
/// next change, so that a change of a computed property is one evaluation, not an untracked read of the
/// old value before the set and a tracked read of the new one after it.
///
/// Kept for registrations that want old values (and no prior records, which are sent before the set),
/// of a type with no references (numbers, flags, structs of them: `_isPOD`), so that holding it keeps
/// no object alive; other values are read before each change. Used while the registration's last
/// evaluation found no chain (``LeafWord/noChain(shape:)``): every change of such a registration is
/// evaluated, so the value kept is the last one delivered. (A chain's leaf changes are delivered from
/// the setter's values, without an evaluation.)
///
/// Every change of such a registration takes its old value from here: a set of what it reads (copied
/// before the set where the slot has several registrations, whose callbacks may change it meanwhile),
/// a manual `willChangeValue(for:)` (copied then). One difference from Cocoa, which reads the old value
/// at `willChangeValueForKey:`: a change that was not announced (an input that is not observable,
/// changed in between) shows in the next record's new value, while its old value is the one observers
/// were last told.
///
/// It is the registration's `Extras`, with room for the value in it: one allocation, and not generic, so
/// that making one looks up no generic metadata. Values of up to `capacity` bytes are kept.
final class LastValue: KVOInfo.Extras {
    /// The value, of the registration's `Value` type (a `_isPOD` one, so nothing is retained or
    /// deinitialised here), in its first bytes. Guarded by the registration's striped lock (`prune`'s
    /// `underLock`), and reached only through `withValue`.
    @exclusivity(unchecked) private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// Whether `words` holds a value yet. Guarded by the striped lock.
    @exclusivity(unchecked) var isSet = false

    /// The most bytes a value kept here may take (its alignment must be at most 8).
    static var capacity: Int { 32 }

    init() {
        super.init(keepsValue: true)
    }

    /// Calls `body` with the value's memory (valid only during the call).
    func withValue<Result>(_ body: (UnsafeMutableRawPointer) -> Result) -> Result {
        withUnsafeMutableBytes(of: &words) { body($0.baseAddress!) }
    }
}
