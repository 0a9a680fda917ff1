/// ``KVOOptions/distinct``: a change that leaves the value as it was delivers nothing. The values are
/// compared by the test the registration keeps in its `Extras` (`_DistinctValues`), inside the gate.
extension KVOInfo {
    /// Whether a change needs its old value: for its record (`.old`) or for `.distinct`'s comparison.
    final var wantsOldValue: Bool {
        !options.isDisjoint(with: [.old, .distinct])
    }

    /// Inside the gate: whether, with `.distinct`, a change from the value at `old` to the one at `new`
    /// (each a `type`) changed nothing, and so is not delivered. Not without both values.
    @inline(__always)
    final func changesNothing(old: ValueAddress?, new: ValueAddress?, type: Any.Type) -> Bool {
        _slowPath(options.contains(.distinct)) && isSame(old, new, type: type)
    }

    /// A set that changed nothing, inside the gate: stores and leaves (out of line, off a set's path).
    @inline(never)
    final func storeUnchanged(_ store: () -> Void, passed: Bool) {
        store()
        leave(passed: passed)
    }

    /// `changesNothing` without the test of the option, for a caller that made it. (A weak referent's death
    /// is a change even though both values read nil: the referent is gone.)
    @inline(__always)
    final func isSame(_ old: ValueAddress?, _ new: ValueAddress?, type: Any.Type) -> Bool {
        guard let old, let new, let extras = unretainedExtras else { return false }
        return (extras.with { $0.sameValues?(old, new, type) } ?? false) && !ThreadContext.isAnnouncingDeath
    }
}
