/// A typed key path's reading, compiled where the key path is written: given an object (an `Object`,
/// not retained), it initialises the memory at `destination` (uninitialised, for a `Value`) to the key
/// path's value on the object; given none, it assigns the key path itself to the `AnyKeyPath?` at
/// `destination`.
///
/// A registration that is not one `@Observed` property (a computed property, a chain, a dependent
/// key) reads its key path when it starts and after each change. Through the key-path runtime that read
/// cost about 700 instructions (each component interpreted, generic metadata looked up in a shared
/// cache), the largest part of such a change. Made in an always-inlined entry point from the literal the
/// user wrote, the closure is compiled down to the getters' calls and, for a literal with no subscript
/// arguments on a concrete root, captures nothing. That takes the literal being used once, by the
/// closure (the optimiser propagates a key path literal into an escaping closure only then: the entry
/// points take it `__owned` and `consume` it), which is why the same closure also gives the key path.
///
/// That key path is equal to the literal, though not always the same object: a literal's object is made
/// once per place the compiler emits it, and the specialised closure is one such place, shared by every
/// registration of that literal with those types, wherever written. A key path that is not a literal
/// (or code that is not optimised) is captured, and the closure reads it through the runtime. Values
/// read are put in this thread's room for them (`ThreadContext.readingRoom`); a registration whose
/// values do not fit reads through the runtime.
@usableFromInline
typealias _KeyPathReading = (_ object: ObjectAddress?, _ destination: ValueRoom) -> Void

extension TypedKVOInfo {
    /// The key path's value on `object`, read as the registration was made to read it: by its compiled
    /// reading, if it keeps one, else through the key-path runtime.
    func read(_ object: Object) -> Value {
        switch readerKind {
        case .typed:
            if let reading = extrasReference.withInstance({ $0.reading }) ?? nil {
                return Self.read(object, by: reading)
            }
            return object[keyPath: KnownClass.cast(keyPath, to: KeyPath<Object, Value>.self)]
        case .partial: return object[keyPath: KnownClass.cast(keyPath, to: PartialKeyPath<Object>.self)] as! Value
        case .flattening:
            let flattening = KnownClass.cast(keyPath, to: KeyPath<Object, Any?>.self)
            return (object[keyPath: flattening] ?? (Any?.none as Any)) as! Value
        }
    }

    /// `read(_:)` for a `Value` held as its bytes (`TrivialValueBytes.fits`): through the compiled reading
    /// into this thread's room and out of it as bytes, with no value of the generic type on the way.
    func readBytes(_ object: Object) -> TrivialValueBytes {
        if readerKind == .typed, let reading = extrasReference.withInstance({ $0.reading }) ?? nil {
            let room = ThreadContext.withCurrent { $0.readingRoom }
            reading(ObjectAddress(object), room)
            return room.moveBytes(size: MemoryLayout<Value>.size)
        }
        return readBytesThroughValue(object)
    }

    /// `readBytes` through `read(_:)`. (Out of line: its room for a value of the generic type is then made
    /// only when it runs.)
    @inline(never)
    private func readBytesThroughValue(_ object: Object) -> TrivialValueBytes {
        var bytes = TrivialValueBytes()
        bytes.store(read(object))
        return bytes
    }

    /// The reading of `keyPath` (see `_KeyPathReading`): call it where the key path is a literal, in
    /// always-inlined code, and use the key path nowhere else.
    @inlinable
    @inline(__always)
    static func _reading(_ keyPath: __owned KeyPath<Object, Value>) -> _KeyPathReading {
        // (Through a closure that gives the key path, so that each branch makes the literal only if it
        // uses it: a captured literal is made on entry, and a read then made and released one.)
        let keyPathOf = { keyPath }
        return { object, destination in
            guard let object else {
                destination.assign(keyPathOf() as AnyKeyPath?)
                return
            }
            destination.initialize(to: object.object(as: Object.self)[keyPath: keyPathOf()])
        }
    }

    /// Creates a registration of the typed key path that `reading` reads, keeping `reading` for its
    /// evaluations unless the key path is known to be one `@Observed` property (whose value comes from
    /// its sets) or its values do not fit the room `read(_:by:)` reads them into.
    @usableFromInline
    convenience init(
        object: __shared Object,
        reading: @escaping _KeyPathReading,
        options: KVOOptions,
        owner: __shared AnyObject?,
        box: __shared _DeliveryBox,
        sameValues: __shared _SameValues?
    ) {
        var keyPath: AnyKeyPath?
        ValueRoom.of(&keyPath) { reading(nil, $0) }
        let typed = KnownClass.cast(keyPath.unsafelyUnwrapped, to: KeyPath<Object, Value>.self)
        self.init(
            object: object,
            reader: .typed(typed),
            options: options,
            owner: owner,
            box: box,
            sameValues: sameValues
        )
        guard leafWord.directField == nil, Self.fitsReadingRoom else { return }
        unretainedExtrasCreating().with { $0.reading = reading }
    }

    /// Whether a `Value` fits the room `read(_:by:)` reads it into.
    static var fitsReadingRoom: Bool {
        MemoryLayout<Value>.size <= ThreadContext.readingRoomSize && MemoryLayout<Value>.alignment <= 16
    }

    /// The value that `reading` reads from `object` (a `Value` that fits the room), through this thread's
    /// room for it (not `withUnsafeTemporaryAllocation`: unspecialised here, it looked up generic metadata
    /// on every read).
    static func read(_ object: Object, by reading: _KeyPathReading) -> Value {
        let room = ThreadContext.withCurrent { $0.readingRoom }
        reading(ObjectAddress(object), room)
        return room.move(as: Value.self)
    }
}
