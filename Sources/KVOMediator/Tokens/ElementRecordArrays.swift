import Synchronization

/// The two arrays an element-wise registration's records of an element's change carry (old and new
/// values), kept between changes: a record whose callback kept no copy of them gives them back unique,
/// and the next record refills them in place instead of allocating two arrays and freeing them after.
/// Between changes they hold no value that has a lifetime (an object, a string's storage).
///
/// One thread at a time holds them (`busy`, taken with one compare-and-exchange); a change made while
/// another thread (or a callback of this one, changing an element again) holds them builds its own. A
/// callback that keeps a record keeps a copy of its arrays: the next refill then copies on write, and
/// the kept record is left as it was. (`@unchecked Sendable`: the arrays are guarded by `busy`.)
@usableFromInline
final class _ElementRecordArrays<Value>: GuardedFields<_ElementRecordArrays.Pair>, @unchecked Sendable {
    @usableFromInline
    struct Pair {
        @usableFromInline var old: [Value] = []
        @usableFromInline var new: [Value] = []

        @usableFromInline
        init() {}
    }

    /// Whether a change holds the arrays.
    @usableFromInline
    let busy = _BusyFlag()

    @usableFromInline
    init() {
        super.init(guarded: Pair())
    }

    /// Moves the arrays kept into `pair` (empty), unless another change holds them; true when it did:
    /// then give them back with `giveBack`.
    @inlinable
    func take(into pair: inout Pair) -> Bool {
        guard busy.take() else { return false }
        swap(&pair, &guarded)
        return true
    }

    /// Keeps the arrays in `pair`, taken with `take(into:)`, for the next change (`pair` is left empty).
    /// Values that are not plain bytes are let go now, so that no value outlives its records here.
    @inlinable
    func giveBack(_ pair: inout Pair) {
        if !_isPOD(Value.self) {
            pair.old.removeAll(keepingCapacity: true)
            pair.new.removeAll(keepingCapacity: true)
        }
        swap(&pair, &guarded)
        busy.release()
    }

    /// What `array` held, leaving it empty: no retain, no release.
    @inlinable
    static func moveOut(_ array: inout [Value]) -> [Value] {
        var moved: [Value] = []
        swap(&moved, &array)
        return moved
    }

    /// `array` holding `value` `count` times: in its own buffer when that is unique and large enough.
    @inlinable
    static func refill(_ array: inout [Value], with value: Value, count: Int) {
        // (The common case, an element held once and a record given back: one store, no resizing.)
        if array.count == count {
            for index in 0..<count { array[index] = value }
            return
        }
        array.removeAll(keepingCapacity: true)
        if count == 1 {
            array.append(value)
        } else {
            array.append(contentsOf: repeatElement(value, count: count))
        }
    }
}

/// A flag one thread at a time holds (see `_ElementRecordArrays`).
@usableFromInline
final class _BusyFlag: Sendable {
    @usableFromInline
    let held = Atomic<Bool>(false)

    @usableFromInline
    init() {}

    /// Holds the flag; false when another holds it.
    @inlinable
    func take() -> Bool {
        held.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
    }

    /// Lets the flag go.
    @inlinable
    func release() {
        held.store(false, ordering: .releasing)
    }
}
