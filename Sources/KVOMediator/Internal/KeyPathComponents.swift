/// The components of a key path object, as the Swift runtime lays them out: what tells a literal chain
/// of properties (`\Holder.label?.count`) from a computed property that reads the same properties
/// (`\Holder.doubledCount`, whose getter reads `label` and `count` and doubles the count). Both read
/// the same storage in the same order; only the key path's own components say which it is, and Swift
/// has no public API for them.
///
/// Unsafe, and why it is sound: it reads a key path object's tail-allocated buffer, whose layout is the
/// runtime's ABI (stable since Swift 5, the same on Linux and Apple platforms; the standard library's
/// `KeyPath.swift` and `KeyPathShared.h` define it): after the object header and the KVC string pointer
/// a 32-bit header whose low 24 bits are the components' size, padded to a word; then each component, a
/// 32-bit header (its kind in bits 24–30) and its body, followed by the next component's type (a
/// word-aligned pointer) unless it is the last. Every read is checked against that size, and anything
/// this reader does not know (an external or unresolved component, a computed one with arguments, a
/// size out of bounds) makes it answer nil, which callers take as "not known to be a chain": the slow,
/// always correct path.
enum KeyPathComponents {
    /// One property component: its kind and the word that identifies it, as the runtime's own `==`
    /// compares them (a computed property's ID with its kind of ID, or a stored property's offset).
    struct Property: Equatable {
        let kind: UInt32
        let id: UInt
    }

    private static var wordSize: Int { MemoryLayout<UInt>.size }
    /// Where the buffer's header is: after the object header (two words) and the KVC string pointer.
    private static var bufferOffset: Int { 3 * wordSize }

    private static let sizeMask: UInt32 = 0x00FF_FFFF
    private static let kindShift: UInt32 = 24
    private static let kindMask: UInt32 = 0x7F00_0000
    private static let payloadMask: UInt32 = 0x00FF_FFFF
    private static let structKind: UInt32 = 1
    private static let computedKind: UInt32 = 2
    private static let classKind: UInt32 = 3
    private static let optionalKind: UInt32 = 4
    private static let computedSettable: UInt32 = 0x0040_0000
    /// A computed ID's kind (by stored property, by vtable offset): part of what identifies it.
    private static let computedIDKindMask: UInt32 = 0x0030_0000
    private static let computedHasArguments: UInt32 = 0x0008_0000
    private static let computedIDResolutionMask: UInt32 = 0x0000_000F
    /// A stored component's payload: its offset (bit 23 says whether the property is mutable).
    private static let storedOffsetMask: UInt32 = 0x007F_FFFF
    private static let maximumInlineOffset: UInt32 = 0x007F_FFFC
    private static let outOfLineOffset: UInt32 = 0x007F_FFFF

    /// The property components of `keyPath`, in order, without its optional chaining, wrapping and
    /// forcing; nil if its layout is not one this reader knows (see above).
    static func properties(of keyPath: AnyKeyPath) -> [Property]? {
        withExtendedLifetime(keyPath) {
            let object = FieldAddress(of: keyPath, at: 0).raw
            let header = object.load(fromByteOffset: bufferOffset, as: UInt32.self)
            let size = Int(header & sizeMask)
            let start = object + bufferOffset + wordSize
            var offset = 0
            var properties: [Property] = []
            while offset < size {
                guard offset + 4 <= size else { return nil }
                let componentHeader = start.load(fromByteOffset: offset, as: UInt32.self)
                let kind = (componentHeader & kindMask) >> kindShift
                let payload = componentHeader & payloadMask
                offset += 4
                switch kind {
                case optionalKind:
                    break
                case structKind, classKind:
                    let storedOffset = payload & storedOffsetMask
                    guard storedOffset <= maximumInlineOffset || storedOffset == outOfLineOffset else { return nil }
                    var fieldOffset = UInt(storedOffset)
                    if storedOffset == outOfLineOffset {
                        guard offset + 4 <= size else { return nil }
                        fieldOffset = UInt(start.load(fromByteOffset: offset, as: UInt32.self))
                        offset += 4
                    }
                    properties.append(Property(kind: kind, id: fieldOffset))
                case computedKind:
                    // Instantiated IDs only (resolution 0), and no arguments: a subscript is no property.
                    guard payload & computedHasArguments == 0, payload & computedIDResolutionMask == 0 else {
                        return nil
                    }
                    offset = aligned(offset)
                    let words = payload & computedSettable != 0 ? 3 : 2
                    guard offset + words * wordSize <= size else { return nil }
                    let id = start.load(fromByteOffset: offset, as: UInt.self)
                    properties.append(Property(kind: componentHeader & (kindMask | computedIDKindMask), id: id))
                    offset += words * wordSize
                default:
                    return nil
                }
                // The next component's type, after every component but the last.
                guard offset < size else { break }
                offset = aligned(offset) + wordSize
            }
            return offset == size ? properties : nil
        }
    }

    /// Whether `keyPath` is exactly the chain of `links`, each a key path of one property: its property
    /// components are theirs, in order (optional chaining between them allowed). False when any layout
    /// is not known.
    static func isChain(_ keyPath: AnyKeyPath, of links: [AnyKeyPath]) -> Bool {
        guard let chain = properties(of: keyPath), chain.count == links.count else { return false }
        for (component, link) in zip(chain, links) {
            guard let own = properties(of: link), own.count == 1, own[0] == component else { return false }
        }
        return true
    }

    private static func aligned(_ offset: Int) -> Int {
        (offset + wordSize - 1) & ~(wordSize - 1)
    }
}
