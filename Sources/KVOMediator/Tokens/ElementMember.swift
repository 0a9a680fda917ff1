import Foundation

/// One distinct member of an observation of elements (`ElementMembers`), from the time it joins the
/// collection until it leaves: its registration holds it, so that its change finds its place with no
/// look-up. (An element that leaves and joins again is another member.) Its fields are guarded by the
/// `ElementMembers`' lock (a `GuardedFields`: no runtime exclusivity check on each access).
@usableFromInline
final class ElementMember: GuardedFields<ElementMemberFields>, @unchecked Sendable {  // guarded by the members' lock
    init() {
        super.init(guarded: ElementMemberFields())
    }

    /// Marks it left; returns its registration, to be ended with the lock no longer held.
    func leave() -> KVOObservation? {
        guarded.left = true
        defer { guarded.token = nil }  // (The registration holds this member: no cycle is left.)
        return guarded.token
    }
}

/// An element member's state.
@usableFromInline
struct ElementMemberFields {
    /// How many times the collection holds it.
    var count = 0
    /// Its registration, once made (made with no lock held, after the member joined: one that is not
    /// needed any more when it is ready is ended at once).
    var token: KVOObservation?
    /// Its indexes, while the members' indexes are current, and the first of them (-1: none), which is
    /// the record's one index when the collection holds it once (no `IndexSet` retained for the record).
    var indexes = IndexSet()
    var firstIndex = -1
    /// Whether it left (or the observation ended): its registration's changes are no longer recorded.
    var left = false
}
