// Addresses: the engine's raw memory, in six small types, each saying why it is sound. A stored field
// of an object (`FieldAddress`), an object held by nothing but its keeper (`ObjectAddress`), a value
// lent by address for one call (`ValueAddress`), room a value is moved through or kept in
// (`ValueRoom`, `TrivialValueBytes`), and a value carried as a word (`TrivialWord`). The hot paths call
// these for raw memory; what is left outside is typed (a chain walk's stack buffer of `LinkStep`s).

/// The address of a stored field of a class instance: the object's address plus the field's byte offset.
///
/// Why it is sound: the offset is one the runtime reported for that field of the object's class (a
/// key path's stored offset, or the class's field metadata, `ObservedFields`), and every caller keeps
/// the object alive for as long as it uses the address (a strong reference, or, for a chain's leaf
/// reached through `ObjectAddress`, the links before it, held for the length of the set), so the memory
/// is the field's and stays allocated. The type it is read as is the field's declared type, which the caller knows
/// from the same source as the offset. The setters, the reads and sets by name and a chain's walk make
/// their addresses here.
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

    @inline(__always)
    init(raw: UnsafeMutableRawPointer) {
        self.raw = raw
    }

    /// The field, as a `Field` (its declared type).
    @inlinable
    @inline(__always)
    func pointer<Field>(to type: Field.Type) -> UnsafeMutablePointer<Field> {
        raw.assumingMemoryBound(to: Field.self)
    }

    /// Applies `body` to the field in place, as a `Field` (its declared type). The caller makes sure
    /// that nothing else accesses the field meanwhile, as a setter's store would.
    @inlinable
    @inline(__always)
    func mutate<Field, Result>(as type: Field.Type, _ body: (inout Field) throws -> Result) rethrows -> Result {
        try body(&raw.assumingMemoryBound(to: Field.self).pointee)
    }

    /// The field's bytes read as a `Field`, which need not be its declared type (a part of it, say).
    @inlinable
    @inline(__always)
    func load<Field>(fromByteOffset offset: Int = 0, as type: Field.Type) -> Field {
        raw.load(fromByteOffset: offset, as: Field.self)
    }
}

/// An object's address, held without a retain: how a chain's walk goes from object to object, reading
/// each `@Observed` link's storage where its setter writes it (`TypedKVOInfo+Links`), and how a set
/// names the object it is on.
///
/// Why it is sound: every object walked is held by the link before it, the first by the setter's old or
/// new value, for as long as the set lasts (the walk ends before the set returns); a field is read at
/// the offset the class's field metadata gives (`ObservedFields`), as the field's declared type (an
/// object link's value is an object reference, or an optional one: its bits are the object's address,
/// or 0). Nothing is retained or released here, so nothing can be freed by it.
@usableFromInline
@frozen
struct ObjectAddress: Equatable {
    @usableFromInline
    let raw: UnsafeRawPointer

    @inlinable
    @inline(__always)
    init(_ object: __shared AnyObject) {
        raw = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    }

    @inlinable
    @inline(__always)
    init(raw: UnsafeRawPointer) {
        self.raw = raw
    }

    /// The object's class (borrowed: no retain).
    @inline(__always)
    var type: AnyObject.Type {
        Unmanaged<AnyObject>.fromOpaque(raw)._withUnsafeGuaranteedRef { Swift.type(of: $0) }
    }

    /// The object, which the caller knows to be a `T`, as a strong reference of its own.
    @inlinable
    @inline(__always)
    func object<T: AnyObject>(as _: T.Type) -> T {
        Unmanaged<T>.fromOpaque(raw).takeUnretainedValue()
    }

    /// Calls `body` with the object, borrowed (no retain).
    @inline(__always)
    func with<Result>(_ body: (AnyObject) -> Result) -> Result {
        Unmanaged<AnyObject>.fromOpaque(raw)._withUnsafeGuaranteedRef(body)
    }

    /// Calls `body` with the object, which the caller knows to be a `T`, borrowed (no retain).
    @inline(__always)
    func with<T: AnyObject, Result>(as _: T.Type, _ body: (T) -> Result) -> Result {
        Unmanaged<T>.fromOpaque(raw)._withUnsafeGuaranteedRef(body)
    }

    /// The field at byte offset `offset`.
    @inline(__always)
    func field(_ offset: Int) -> FieldAddress {
        FieldAddress(raw: UnsafeMutableRawPointer(mutating: raw) + offset)
    }

    /// The object an object link's storage at `offset` holds (its value, an optional reference, is the
    /// storage's first field); nil when it holds none.
    @inline(__always)
    func linkedObject(atField offset: Int) -> ObjectAddress? {
        (raw + offset).load(as: UnsafeRawPointer?.self).map(ObjectAddress.init(raw:))
    }

    /// The reference to a `T` stored at `offset` (a class's `kvoRegistrar`), unretained.
    @inline(__always)
    func reference<T: AnyObject>(atField offset: Int, as _: T.Type) -> Unretained<T> {
        Unretained(unmanaged: Unmanaged<T>.fromOpaque((raw + offset).load(as: UnsafeRawPointer.self)))
    }
}

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
///
/// The library takes such addresses with the standard library's `_withUnprotectedUnsafePointer(to:)`
/// family (`_withValuePointer(to:_:)` for a borrowed value): the same calls, without the stack protector
/// that `withUnsafePointer(to:)` arms for a local (a canary written and checked in each function that
/// takes one, and in each thunk that the compiler merges into such a function). What is behind an address
/// is one value, read or written as the type it was made with. The one exception is `TrivialValueBytes`,
/// a fixed room that a value is copied into only after `TrivialValueBytes.fits` said it fits; every
/// other buffer keeps its protector (`withUnsafeTemporaryAllocation` in `TypedKVOInfo+Links.swift`).
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

    @inline(__always)
    init(raw: UnsafeRawPointer) {
        self.raw = raw
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

extension ValueAddress {
    /// Whether this value and `other`, each one word (an object reference, or an optional one: nil is
    /// 0), are the same word: the same object, or both nil, with no retain.
    @usableFromInline
    func isSameWord(as other: ValueAddress) -> Bool {
        raw.load(as: UInt.self) == other.raw.load(as: UInt.self)
    }

    /// The object a value that is an object reference (or an optional one) refers to, unretained: a
    /// chain link's old or new value; nil for none.
    @inline(__always)
    func linkedObject() -> ObjectAddress? {
        raw.load(as: UnsafeRawPointer?.self).map(ObjectAddress.init(raw:))
    }
}

/// Uninitialised room for one value, lent for a call: where a compiled reading puts the value it read
/// (this thread's room, `ThreadContext.readingRoom`), or the key path it reads.
///
/// Why it is sound: its maker gives it memory of the size and alignment of the value put there
/// (`fits`), the value is put there once and taken out (moved) once by the code that knows its type,
/// both within the call it is lent to.
@usableFromInline
@frozen
struct ValueRoom {
    @usableFromInline
    let raw: UnsafeMutableRawPointer

    @inlinable
    @inline(__always)
    init(raw: UnsafeMutableRawPointer) {
        self.raw = raw
    }

    /// Room of `size` bytes aligned to `alignment`, until `deallocate()`.
    static func allocate(size: Int, alignment: Int) -> ValueRoom {
        ValueRoom(raw: .allocate(byteCount: size, alignment: alignment))
    }

    func deallocate() {
        raw.deallocate()
    }

    /// Calls `body` with the room of `value`, an initialised variable (into which `assign` writes).
    @inline(__always)
    static func of<Value, Result>(_ value: inout Value, _ body: (ValueRoom) -> Result) -> Result {
        _withUnprotectedUnsafeMutablePointer(to: &value) { body(ValueRoom(raw: UnsafeMutableRawPointer($0))) }
    }

    /// Puts `value` in the room, which is uninitialised.
    @inlinable
    @inline(__always)
    func initialize<Value>(to value: __owned Value) {
        raw.initializeMemory(as: Value.self, to: value)
    }

    /// Replaces the `Value` in the room with `value`.
    @inlinable
    @inline(__always)
    func assign<Value>(_ value: __owned Value) {
        raw.assumingMemoryBound(to: Value.self).pointee = value
    }

    /// Takes the `Value` out of the room, leaving it uninitialised.
    @inline(__always)
    func move<Value>(as _: Value.Type) -> Value {
        raw.assumingMemoryBound(to: Value.self).move()
    }

    /// Takes the value out of the room as its `size` bytes: a value of a trivial type that
    /// `TrivialValueBytes.fits` (nothing to deinitialise), whose size is `size`.
    @inline(__always)
    func moveBytes(size: Int) -> TrivialValueBytes {
        TrivialValueBytes(copying: raw, size: size)
    }
}

/// A value of a trivial type (`_isPOD`: no references, so nothing to retain or deinitialise) of up to
/// `capacity` bytes and alignment 8, kept as plain words where the type is known only to the code that
/// stores and loads it (a registration's last value, ``LastValue``): no generic storage, no allocation.
///
/// Why it is sound: `fits` is checked before the first store (a debug build checks each store and
/// load), and a value is loaded only as the type it was stored as, which the one registration that
/// keeps it fixes.
struct TrivialValueBytes {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// The most bytes a value kept here may take.
    static var capacity: Int { 32 }

    /// Whether values of `type` can be kept here.
    @inline(__always)
    static func fits<Value>(_: Value.Type) -> Bool {
        _isPOD(Value.self) && MemoryLayout<Value>.size <= capacity && MemoryLayout<Value>.alignment <= 8
    }

    /// Calls `body` with the value kept, stored as a `Value`. (Given to a closure that returns nothing,
    /// not returned: the closures here are then specialised in code generic over `Value`.)
    @inline(__always)
    func withValue<Value>(as _: Value.Type, _ body: (Value) -> Void) {
        // (Its callers asked `fits`; without a stack protector, this is what keeps a read inside the room.)
        precondition(MemoryLayout<Value>.size <= Self.capacity)
        assert(Self.fits(Value.self))
        _withUnprotectedUnsafeBytes(of: words) {
            body($0.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: Value.self).pointee)
        }
    }

    init() {}

    /// The `size` bytes at `address`: a value of a trivial type that `fits`, whose size is `size`.
    @inline(__always)
    init(copying address: UnsafeRawPointer, size: Int) {
        assert(size <= Self.capacity)
        // (A word, the common size, with no call to `memcpy`.)
        if size == 8 {
            words.0 = address.loadUnaligned(as: UInt64.self)
            return
        }
        precondition(size <= Self.capacity)
        _withUnprotectedUnsafeMutableBytes(of: &words) {
            $0.baseAddress.unsafelyUnwrapped.copyMemory(from: address, byteCount: size)
        }
    }

    /// Calls `body` with the address of the value kept, to be loaded as the type it was kept as (see
    /// `ValueAddress`).
    @inline(__always)
    func withAddress<Result>(_ body: (ValueAddress) -> Result) -> Result {
        _withUnprotectedUnsafeBytes(of: words) { body(ValueAddress(raw: $0.baseAddress.unsafelyUnwrapped)) }
    }

    /// Keeps `value`, over whatever was kept (trivial: a copy of bytes).
    @inline(__always)
    mutating func store<Value>(_ value: Value) {
        precondition(MemoryLayout<Value>.size <= Self.capacity)
        assert(Self.fits(Value.self))
        _withUnprotectedUnsafeMutableBytes(of: &words) {
            _ = $0.baseAddress.unsafelyUnwrapped.initializeMemory(as: Value.self, to: value)
        }
    }
}

#if compiler(>=6.1)
/// Calls `body` with the address of `value`, borrowed for the call, without a stack protector (see
/// ``ValueAddress``). (Typed as the standard library's is, so that unspecialised code passes `body` on
/// with no thunk.)
@inlinable
@inline(__always)
func _withValuePointer<T, E: Error, Result>(
    to value: borrowing T,
    _ body: (UnsafePointer<T>) throws(E) -> Result
) throws(E) -> Result {
    try _withUnprotectedUnsafePointer(to: value, body)
}
#else
/// Calls `body` with the address of `value`, borrowed for the call: with a stack protector, as the
/// standard library's borrowing `_withUnprotectedUnsafePointer(to:)` came with Swift 6.1.
@inlinable
@inline(__always)
func _withValuePointer<T, Result>(to value: borrowing T, _ body: (UnsafePointer<T>) -> Result) -> Result {
    withUnsafePointer(to: value, body)
}
#endif

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

/// A trivial value of 1, 2, 4 or 8 bytes (an `Int`, a `Double`, a `Bool`, an enum without payloads)
/// carried as a word: its bytes are the word's low bytes, so a non-generic function can store it, and lend
/// it by address as the value it is (`ValueAddress(_:)` of the word).
///
/// Why it is sound: the type has no reference to count, its bytes are reinterpreted only as an unsigned
/// integer of its own size (`unsafeBitCast` checks the sizes agree), and on a little-endian machine (the
/// only one that uses this) a word's first bytes are its low bytes. Its fields are stored and loaded
/// unaligned, whatever the type's alignment.
@usableFromInline
enum TrivialWord {
    /// Whether `Value` travels as a word (a constant once the caller is specialised).
    @inlinable
    @inline(__always)
    static func fits<Value>(_: Value.Type) -> Bool {
        #if _endian(little)
        let size = MemoryLayout<Value>.size
        return _isPOD(Value.self) && (size == 8 || size == 4 || size == 2 || size == 1)
        #else
        return false
        #endif
    }

    /// `value`'s bytes as a word's low bytes (the rest zero). Only for a `Value` that `fits`. (No address of
    /// a local is taken: that would give every setter a stack protector.)
    @inlinable
    @inline(__always)
    static func word<Value>(of value: Value) -> UInt64 {
        switch MemoryLayout<Value>.size {
        case 8: return unsafeBitCast(value, to: UInt64.self)
        case 4: return UInt64(unsafeBitCast(value, to: UInt32.self))
        case 2: return UInt64(unsafeBitCast(value, to: UInt16.self))
        default: return UInt64(unsafeBitCast(value, to: UInt8.self))
        }
    }
}

extension FieldAddress {
    /// A trivial field of 1, 2, 4 or 8 bytes, as the low bytes of a word (see `TrivialWord`).
    @inline(__always)
    func loadWord(size: Int) -> UInt64 {
        switch size {
        case 8: return raw.loadUnaligned(as: UInt64.self)
        case 4: return UInt64(raw.loadUnaligned(as: UInt32.self))
        case 2: return UInt64(raw.loadUnaligned(as: UInt16.self))
        default: return UInt64(raw.load(as: UInt8.self))
        }
    }

    /// Stores the low `size` bytes of `word` as a trivial field of 1, 2, 4 or 8 bytes (see `TrivialWord`).
    @inline(__always)
    func storeWord(_ word: UInt64, size: Int) {
        // (The commonest size first: a switch tested it last.)
        if _fastPath(size == 8) { return raw.storeBytes(of: word, as: UInt64.self) }
        switch size {
        case 4: raw.storeBytes(of: UInt32(truncatingIfNeeded: word), as: UInt32.self)
        case 2: raw.storeBytes(of: UInt16(truncatingIfNeeded: word), as: UInt16.self)
        default: raw.storeBytes(of: UInt8(truncatingIfNeeded: word), as: UInt8.self)
        }
    }
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

/// An object's address as descriptions show it (`0x6000…`), with no reference held.
func hexAddress(of object: AnyObject) -> String {
    hexAddress(of: ObjectIdentifier(object))
}

/// The address an identifier stands for, as descriptions show it.
func hexAddress(of id: ObjectIdentifier) -> String {
    "0x" + String(UInt(bitPattern: id), radix: 16)
}
