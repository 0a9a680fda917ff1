/// The address of a stored field of a class instance: the object's address plus the field's byte offset.
///
/// Why it is sound: the offset is one the runtime reported for that field of the object's class (a
/// key path's stored offset, or the class's field metadata, `ObservedFields`), and every caller holds
/// a strong reference to the object for as long as it uses the address, so the memory is the field's
/// and stays allocated. The type it is read as is the field's declared type, which the caller knows
/// from the same source as the offset. The setters and the reads and sets by name make their
/// addresses here (the chain-following code still does its own arithmetic: `SwiftRuntime`'s list).
@usableFromInline
@frozen
struct FieldAddress {
    @usableFromInline
    let raw: UnsafeMutableRawPointer

    /// The field at byte offset `offset` of `object` (0: the object's own first byte).
    @inlinable
    @inline(__always)
    init(of object: __shared AnyObject, at offset: Int) {
        raw = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset
    }

    /// The field, as a `Field` (its declared type).
    @inlinable
    @inline(__always)
    func pointer<Field>(to type: Field.Type) -> UnsafeMutablePointer<Field> {
        raw.assumingMemoryBound(to: Field.self)
    }

    /// The field's bytes read as a `Field`, which need not be its declared type (a part of it, say).
    @inlinable
    @inline(__always)
    func load<Field>(fromByteOffset offset: Int = 0, as type: Field.Type) -> Field {
        raw.load(fromByteOffset: offset, as: Field.self)
    }
}

// MARK: Offsets

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
    FieldLocating.begin()
    defer { FieldLocating.end() }
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

/// Serialises getters' locating of their storage in unoptimised builds, where taking the storage's
/// address is a modifying access (see `_storageOffsetForReading`): one thread at a time.
@usableFromInline
enum FieldLocating {
    private static let lock = Lock()

    @usableFromInline
    static func begin() {
        lock.lock()
    }

    @usableFromInline
    static func end() {
        lock.unlock()
    }
}
