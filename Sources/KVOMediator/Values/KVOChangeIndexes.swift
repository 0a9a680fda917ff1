import Foundation

/// A record's indexes as its mutation gave them: one index is kept as it is, and becomes an `IndexSet`
/// when ``KVOChange/indexes`` is read (on Linux an `IndexSet` is an `NSIndexSet` and a handle, two
/// allocations, which an observer that does not read the indexes need not pay for).
///
/// The form the indexes travel in, from a proxy to the box that builds the record; ``KVOChange`` itself
/// keeps them packed (its `_indexSet`, and the one index in `_flags`), so that it stays 64 bytes.
@usableFromInline
struct _KVOIndexes {
    @usableFromInline
    var set: IndexSet?
    /// One index, kept without an `IndexSet`; negative when there is none (`set` says).
    @usableFromInline
    var single: Int

    @inlinable
    init(_ indexes: IndexSet?) {
        set = indexes
        single = -1
    }

    @inlinable
    init(single index: Int) {
        set = nil
        single = index
    }

    @inlinable
    init(set: IndexSet?, single: Int) {
        self.set = set
        self.single = single
    }

    @inlinable
    static var none: _KVOIndexes { _KVOIndexes(nil) }

    @inlinable
    static func single(_ index: Int) -> _KVOIndexes { _KVOIndexes(single: index) }

    @inlinable
    static func set(_ indexes: IndexSet) -> _KVOIndexes { _KVOIndexes(indexes) }

    /// The indexes as an `IndexSet` (made now for one index), or nil for none.
    @inlinable
    var indexSet: IndexSet? {
        single >= 0 ? _SingleIndexSets.indexSet(of: single) : set
    }
}

/// `IndexSet(integer:)` for the first indexes (where mutations at the front of an array land), made once
/// and shared: each record that reads one retains it instead of making and freeing two objects. An
/// `IndexSet` is a value (a record's owner that changes its copy gets one of its own), so a shared one is
/// the same as a new one in every way a program can tell. Another index is made as it is asked for, and
/// kept for the thread's next record of that index (the other observers of the mutation, the next
/// mutation at the end of a list).
@usableFromInline
enum _SingleIndexSets {
    /// (None with every cache off: see `CacheSwitch`.)
    private static let shared: [IndexSet] = CacheSwitch.cachesAreOn ? (0..<64).map { IndexSet(integer: $0) } : []

    @usableFromInline
    static func indexSet(of index: Int) -> IndexSet {
        if index < shared.count { return shared[index] }
        guard CacheSwitch.cachesAreOn else { return IndexSet(integer: index) }
        return ThreadContext.withCurrent { context in
            if let last = context.lastSingleIndexSet, last.index == index { return last.set }
            let set = IndexSet(integer: index)
            context.lastSingleIndexSet = (index, set)
            return set
        }
    }
}
