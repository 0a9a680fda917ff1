/// The byte offset of the storage at `storageKeyPath` in `object`, which names an observed property's
/// slot: a constant once optimised. Unsafe: it takes the storage's address.
@inlinable
@inline(__always)
func _storageOffset<Object: AnyObject, Storage>(
    _ storageKeyPath: ReferenceWritableKeyPath<Object, Storage>,
    of object: Object
) -> Int {
    let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    return withUnsafeMutablePointer(to: &object[keyPath: storageKeyPath]) { UnsafeRawPointer($0) - base }
}

/// `_storageOffset` for a getter. Unoptimised, taking the storage's address is a modifying access, which
/// must not overlap another thread's read (a data race to TSan): debug builds serialise it.
@inlinable
@inline(__always)
func _storageOffsetForReading<Object: AnyObject, Storage>(
    _ storageKeyPath: ReferenceWritableKeyPath<Object, Storage>,
    of object: Object
) -> Int {
    #if DEBUG
    KVORegistrar._beginLocatingField()
    defer { KVORegistrar._endLocatingField() }
    #endif
    return _storageOffset(storageKeyPath, of: object)
}

/// `_storageOffset` for the bridge to Observation, which keys its table of key paths by it (see
/// `CanonicalKeyPaths`): -1, no key, unoptimised, where taking the storage's address is a modifying
/// access that a getter's or setter's report would overlap with other threads' reads and sets. The
/// table only makes Observation's comparisons faster.
@inlinable
@inline(__always)
func _storageOffsetForBridge<Object: AnyObject, Storage>(
    _ storageKeyPath: ReferenceWritableKeyPath<Object, Storage>,
    of object: Object
) -> Int {
    #if DEBUG
    return -1
    #else
    return _storageOffset(storageKeyPath, of: object)
    #endif
}
