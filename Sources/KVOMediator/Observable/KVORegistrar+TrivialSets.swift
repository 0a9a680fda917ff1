/// The set of an `@Observed` property whose value is a `TrivialWord` (an `Int`, a `Double`, a `Bool`)
/// while the registrar's quiet hint is set (see `_storesQuietly(field:)`): in one frame out of line, not
/// two. The generic `Observed._setHinted` asks whether the set only stores and then stores or announces,
/// so it keeps its four arguments across the question; this function answers, stores or announces itself.
extension KVORegistrar {
    /// Sets the `@Observed` storage at byte offset `field` of `object` to the value whose bytes are the low
    /// `size` bytes of `bits` (a `type` that `TrivialWord.fits`): only the store when this thread's
    /// transaction made the property quiet; else as `Observed._setObserved` sets it.
    @usableFromInline
    @inline(never)
    func _setHinted(_ object: AnyObject, bits: UInt64, size: Int, type: Any.Type, field: Int) {
        guard storesQuietlyWhenHinted(field: field) else {
            return setObserved(object, bits: bits, size: size, type: type, field: field)
        }
        FieldAddress(of: object, at: field).storeWord(bits, size: size)
    }

    /// `Observed._setObserved` of a `TrivialWord` given as `bits` (a tail call of `_setHinted`'s, so that
    /// the quiet set does not make the announcement's frame).
    @inline(never)
    private func setObserved(_ object: AnyObject, bits: UInt64, size: Int, type: Any.Type, field: Int) {
        let storage = FieldAddress(of: object, at: field)
        // (`Observed.notifiesAutomatically`: its flag lies right after the value.)
        guard storage.load(fromByteOffset: size, as: Bool.self) else { return storage.storeWord(bits, size: size) }
        // The word's first bytes are the value's (`TrivialWord`): lent by address as the value.
        let oldBits = storage.loadWord(size: size)
        withUnsafePointer(to: oldBits) { oldPointer in
            withUnsafePointer(to: bits) { newPointer in
                _change(
                    field: field,
                    of: object,
                    oldValue: ValueAddress(oldPointer),
                    newValue: ValueAddress(newPointer),
                    type: type
                ) {
                    // The store between the prior and the change records.
                    storage.storeWord(bits, size: size)
                }
            }
        }
    }
}
