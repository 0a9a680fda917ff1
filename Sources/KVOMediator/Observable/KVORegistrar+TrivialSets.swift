// The set of an `@Observed` property whose value is a `TrivialWord` (an `Int`, a `Double`, a `Bool`) while
// the registrar's quiet hint is set (see `_storesQuietly(field:)`): in one frame out of line, not two. The
// generic `Observed._setHinted` asks whether the set only stores and then stores or announces, so it keeps
// its four arguments across the question; `_setHintedTrivial` answers, stores or announces itself.

/// Sets the `@Observed` storage at byte offset `field` of `object` to the value whose bytes are the low
/// `size` bytes of `bits` (a `type` that `TrivialWord.fits`), while `registrar`'s quiet hint is set: only
/// the store when this thread's transaction made the property quiet; else as `Observed._setObserved` sets
/// it.
///
/// A function, its parameters in the order a setter holds them (as `Observed._setObserved`'s), so that
/// the setter tail-calls it: a method would take the registrar in the register the setter must keep, and
/// a static one its class's metadata.
@usableFromInline
@inline(never)
func _setHintedTrivial(
    _ object: AnyObject,
    bits: UInt64,
    registrar: KVORegistrar,
    field: Int,
    size: Int,
    type: Any.Type
) {
    guard registrar.storesQuietlyWhenHinted(field: field) else {
        return setObservedTrivial(object, bits: bits, registrar: registrar, field: field, size: size, type: type)
    }
    FieldAddress(of: object, at: field).storeWord(bits, size: size)
}

/// `Observed._setObserved` of a `TrivialWord` given as `bits`: `_setHintedTrivial`'s tail call when the set
/// is not quiet, so that a quiet set does not make the announcement's frame. (A function for the reason
/// `_setHintedTrivial` is one.)
@inline(never)
private func setObservedTrivial(
    _ object: AnyObject,
    bits: UInt64,
    registrar: KVORegistrar,
    field: Int,
    size: Int,
    type: Any.Type
) {
    let storage = FieldAddress(of: object, at: field)
    // (`Observed.notifiesAutomatically`: its flag lies right after the value.)
    guard storage.load(fromByteOffset: size, as: Bool.self) else { return storage.storeWord(bits, size: size) }
    // The word's first bytes are the value's (`TrivialWord`): lent by address as the value.
    let oldBits = storage.loadWord(size: size)
    _withValuePointer(to: oldBits) { oldPointer in
        _withValuePointer(to: bits) { newPointer in
            registrar._change(
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
