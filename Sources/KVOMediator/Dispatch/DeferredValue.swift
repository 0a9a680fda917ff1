/// A registration's value before a transaction's first change of it, kept until the transaction ends
/// (`TransactionChanges`): a value of a small trivial type as its bytes (no box, and no generic code to
/// read it back), any other boxed.
enum DeferredValue {
    /// Not read: the object was gone.
    case none
    /// A value of `type` (of `size` bytes), trivial and small enough to keep as bytes
    /// (`TrivialValueBytes.fits`).
    case bytes(TrivialValueBytes, type: Any.Type, size: Int)
    /// Any other value.
    case boxed(Any)

    /// The value at `address`, of type `type`.
    init(at address: ValueAddress, type: Any.Type) {
        func open<Value>(_: Value.Type) -> DeferredValue {
            guard TrivialValueBytes.fits(Value.self) else { return .boxed(address.load(as: Value.self)) }
            let size = MemoryLayout<Value>.size
            return .bytes(TrivialValueBytes(copying: address.raw, size: size), type: type, size: size)
        }
        self = _openExistential(type, do: open)
    }

    /// The size of `type`'s values when they are kept as bytes (`TrivialValueBytes.fits`), else -1.
    static func bytesSize(of type: Any.Type) -> Int {
        func open<Value>(_: Value.Type) -> Int { TrivialValueBytes.fits(Value.self) ? MemoryLayout<Value>.size : -1 }
        return _openExistential(type, do: open)
    }

    /// A value read boxed (nil: none).
    init(boxing value: Any?) {
        self = value.map { .boxed($0) } ?? .none
    }

    /// The value boxed (nil: none).
    var boxed: Any? {
        switch self {
        case .none: return nil
        case .boxed(let value): return value
        case .bytes(let bytes, let type, _):
            let value: Any = bytes.withAddress { $0.loadBoxed(as: type) }
            return value
        }
    }
}
