/// What a registration's ``SlotObserver/leaf`` word holds: one of four things, in one atomic word, told apart
/// by bits no other case uses.
///
/// - ``none``: no leaf is known.
/// - ``slot(_:field:)``: the slot whose value is the registration's value (the leaf of its chain, or
///   its direct property): a set of it is delivered from the setter's own old and new values. The
///   registrar's address (below 2^48, 16-byte aligned) shifted left by 16, with the field's offset
///   (below 2^16). Also what a registrar passes to ask whether a registration takes a slot's values.
/// - ``noChain(shape:)``: the last evaluation's reads, by their shape, are known to be no chain, so the
///   next evaluation that reads the same answers at once: bit 16 set, which is a slot's registrar
///   address's bit 0, always 0.
/// - ``directField(_:)``, only until the registration starts: the field its key path is known to be
///   (``DirectSlotCache``): bit 63, above every address, with the field's offset.
struct LeafWord: Equatable {
    let bits: UInt

    @inline(__always)
    init(bits: UInt) {
        self.bits = bits
    }

    /// No leaf known.
    @inline(__always)
    static var none: LeafWord { LeafWord(bits: 0) }

    /// The slot `field` of `registrar` (``none`` for an offset or an address that does not fit).
    @inline(__always)
    static func slot(_ registrar: KVORegistrar, field: Int) -> LeafWord {
        let address = UInt(bitPattern: Unretained(registrar).id)
        guard UInt(bitPattern: field) < 0x1_0000, address < (1 &<< 48) else { return .none }
        return LeafWord(bits: address &<< 16 | UInt(bitPattern: field))
    }

    /// Reads of this shape (``ChainShapeCache/shape(of:)``) are no chain.
    @inline(__always)
    static func noChain(shape: UInt) -> LeafWord {
        LeafWord(bits: shape | Self.noChainBit)
    }

    /// Until it starts: the registration's key path is the `@Observed` property at `field`.
    @inline(__always)
    static func directField(_ field: Int) -> LeafWord {
        LeafWord(bits: Self.directFieldBit | UInt(bitPattern: field))
    }

    @inline(__always) private static var noChainBit: UInt { 1 &<< 16 }
    @inline(__always) private static var directFieldBit: UInt { 1 &<< 63 }

    /// Whether no leaf is known.
    @inline(__always)
    var isNone: Bool { bits == 0 }

    /// Whether it is a ``noChain(shape:)``.
    @inline(__always)
    var isNoChain: Bool { bits & Self.noChainBit != 0 }

    /// Whether it is a ``slot(_:field:)``: a chain's leaf (once the registration has started).
    @inline(__always)
    var isSlot: Bool { bits != 0 && !isNoChain }

    /// The field of a ``slot(_:field:)``, if it is one.
    @inline(__always)
    var slotField: Int? {
        isSlot && directField == nil ? Int(bitPattern: bits & 0xFFFF) : nil
    }

    /// The field of a ``directField(_:)``, if it is one.
    @inline(__always)
    var directField: Int? {
        bits & Self.directFieldBit != 0 ? Int(bitPattern: bits & ~Self.directFieldBit) : nil
    }
}
