/// The value a registration keeps as the old value of its next change (``LastValue``).
extension TypedKVOInfo {
    /// Whether a registration with `options` keeps its last value, the old value of its next change (for
    /// its record, or for `.distinct`'s comparison); its `Extras` then keeps it, made with it.
    static func keepsLastValue(options: KVOOptions) -> Bool {
        !options.isDisjoint(with: [.old, .distinct]) && !options.contains(.prior) && LastValue.fits(Value.self)
    }

    /// A copy of the value `last` keeps, taken under the striped lock; nil before the first evaluation.
    func keptValue(_ last: Unretained<Extras>) -> Value? {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        defer { lock.unlock() }
        return last.with { $0.lastValue.value(as: Value.self) }
    }

    /// The registration's `Extras`, if it keeps its last value there.
    var lastValue: Unretained<Extras>? {
        guard let extras = unretainedExtras, extras.with({ $0.keepsValue }) else { return nil }
        return extras
    }

    /// The registration's `LastValue`, while its last evaluation found no chain (see `LastValue`).
    var usableLastValue: Unretained<Extras>? {
        foundNoChain ? lastValue : nil
    }

    /// The `LastValue` whose value is the old value of the change about to be made, if there is one:
    /// not inside a callback, nor between a `willChangeValue` and its `didChangeValue`, where the change
    /// may be nested in another change of this registration's inputs that is made but not yet evaluated
    /// (the kept value is then from before both). There the old value is read before the change, as for
    /// a value not kept, so that `.prior` (which keeps no value) changes no old value.
    var lastValueBeforeThisChange: Unretained<Extras>? {
        guard let last = usableLastValue, !ThreadContext.mayBeNestedInAChange else { return nil }
        return last
    }
}
