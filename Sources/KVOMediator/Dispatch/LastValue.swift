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
/// It is kept in the registration's `Extras` (``KVOInfo/Extras/lastValue``): one allocation, and not
/// generic, so that making one looks up no generic metadata. Guarded by the registration's striped lock
/// (`prune`'s `underLock`).
struct LastValue {
    /// The value, of the registration's `Value` type (a trivial one: nothing is retained or
    /// deinitialised here).
    private var bytes = TrivialValueBytes()
    /// Whether `bytes` holds a value yet.
    private var isSet = false

    /// Whether a registration of values of `type` can keep them here.
    static func fits<Value>(_ type: Value.Type) -> Bool {
        TrivialValueBytes.fits(type)
    }

    /// Copies the value kept (a `Value`, the registration's type) into `value`; false, with `value`
    /// unchanged, before the first is kept.
    @inline(__always)
    func copy<Value>(into value: inout Value) -> Bool {
        guard isSet else { return false }
        bytes.withValue(as: Value.self) { value = $0 }
        return true
    }

    /// The value kept (a `Value`, the registration's type); nil before the first is.
    @inline(__always)
    func value<Value>(as _: Value.Type) -> Value? {
        var value: Value?
        if isSet { bytes.withValue(as: Value.self) { value = $0 } }
        return value
    }

    /// Keeps `value` in place of the one kept.
    @inline(__always)
    mutating func keep<Value>(_ value: Value) {
        bytes.store(value)
        isSet = true
    }

    /// Under the registration's striped lock: takes the value kept, if any, into `kept` (saying so in
    /// `isKept`), and keeps `newValue` in its place if `applied` (an evaluation that is the newest).
    @inline(__always)
    mutating func exchange<Value>(applied: Bool, newValue: Value, kept: inout Value, isKept: inout Bool) {
        if copy(into: &kept) { isKept = true }
        if applied { keep(newValue) }
    }

    /// `exchange` for a value held as its bytes (of the registration's type).
    @inline(__always)
    mutating func exchange(
        applied: Bool,
        newValue: TrivialValueBytes,
        kept: inout TrivialValueBytes,
        isKept: inout Bool
    ) {
        if isSet {
            kept = bytes
            isKept = true
        }
        if applied {
            bytes = newValue
            isSet = true
        }
    }
}
