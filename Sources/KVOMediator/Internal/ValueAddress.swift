/// The address of a value its owner keeps alive and unchanged while a call runs: how a set's old and new
/// values, a record built on the stack, or a value read again travel from the setter, through the
/// registrar and the registration, to the callback, with no copy and no generic code on the way (the
/// callback's function, specialised for its value type, loads them).
///
/// Why it is sound: it is made only inside `withUnsafePointer(to:)`, or from a pointer its maker holds
/// valid, and it is never kept past the call it is given to (no stored property holds one beyond a
/// set). It is loaded only as the type it was made with: that type travels beside it (`type:` in
/// `_Delivery`, `LinkChange`), or the callee's contract fixes it (a whole `KVOChange` of the callback's
/// value type).
@usableFromInline
@frozen
struct ValueAddress {
    @usableFromInline
    let raw: UnsafeRawPointer

    @inlinable
    @inline(__always)
    init<Value>(_ pointer: UnsafePointer<Value>) {
        raw = UnsafeRawPointer(pointer)
    }

    /// The value, which is of type `Value` (see above).
    @inlinable
    @inline(__always)
    func load<Value>(as _: Value.Type) -> Value {
        raw.assumingMemoryBound(to: Value.self).pointee
    }

    /// The value, of type `type` (known only at run time), boxed.
    @usableFromInline
    func loadBoxed(as type: Any.Type) -> Any {
        func load<T>(_: T.Type) -> Any { raw.assumingMemoryBound(to: T.self).pointee }
        return load(type)
    }
}
