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
