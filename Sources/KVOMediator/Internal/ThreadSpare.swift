/// A spare object kept per thread between uses, and the one-element arrays made in it.
///
/// Why it is sound: the thread's slot holds the spare's one reference, passed in and out unmanaged by this
/// thread alone (`ThreadContext` is the thread's own), and a spare is used as its class only after its
/// class is checked; the array in it is reached by this thread only, between taking and keeping it, so its
/// accesses need no exclusivity check.

/// The one-element array a proxy's record holds as its removed or inserted elements (`[element]`), made
/// in storage this thread kept from its last such record, where `[element]` allocated one for each
/// mutation and freed it after.
///
/// An accelerator only: an array is a value, so a record a callback keeps shares the storage until this
/// changes it, which copies it first (then the next mutation makes storage of its own). The element is
/// destroyed as the mutation ends, as `[element]` would have been, so that the spare holds no element
/// alive. One spare per thread, of the element type used last; none with every cache off
/// (``CacheSwitch``).
@usableFromInline
final class _OneElementArray<Element> {
    @usableFromInline
    @exclusivity(unchecked) var elements: [Element]

    @usableFromInline
    init() {
        elements = []
        elements.reserveCapacity(1)
    }

    /// Calls `body` with `[element]`, made in this thread's spare storage when it holds one of `Element`s.
    @inlinable
    static func with<Result>(_ element: Element, _ body: ([Element]) -> Result) -> Result {
        _ThreadSpare.with(Self.init) { spare in
            spare.elements.append(element)
            let elements = spare.elements
            let result = body(elements)
            // (Given back first: then the storage is the spare's alone again, and changes in place.)
            _ = consume elements
            spare.elements.removeLast()
            return result
        } otherwise: {
            body([element])
        }
    }
}

/// This thread's spare object of one class, kept between uses (see `_OneElementArray`): held by the
/// thread's slot (one retain), taken from it while in use, so that a use inside a use makes its own.
@usableFromInline
enum _ThreadSpare {
    /// Calls `body` with this thread's spare `Spare`, made by `make` if the thread holds none of that class
    /// (one of another class is released); calls `otherwise` instead when spares are not kept (every cache
    /// off: see `CacheSwitch`).
    @inlinable
    @inline(__always)
    static func with<Spare: AnyObject, Result>(
        _ make: () -> Spare,
        _ body: (Spare) -> Result,
        otherwise: () -> Result
    ) -> Result {
        // (Taken and kept unmanaged: the slot's one reference passes back and forth with no reference counting.)
        let spare: Unmanaged<Spare>
        let taken = take()
        let isSpare = taken?._withUnsafeGuaranteedRef { ObjectIdentifier(type(of: $0)) == ObjectIdentifier(Spare.self) }
        if let taken, isSpare == true {
            spare = Unmanaged.fromOpaque(taken.toOpaque())
        } else {
            taken?.release()
            guard keepsSpares() else { return otherwise() }
            spare = Unmanaged.passRetained(make())
        }
        let result = spare._withUnsafeGuaranteedRef(body)
        keep(Unmanaged.fromOpaque(spare.toOpaque()))
        return result
    }

    /// The spare, no longer the slot's (nil when there is none): the caller keeps it or releases it.
    @usableFromInline
    static func take() -> Unmanaged<AnyObject>? {
        ThreadContext.withCurrent { context in
            defer { context.spare = nil }
            return context.spare
        }
    }

    /// Puts `spare` (taken, or made) in the thread's slot, releasing any it holds (one made meanwhile).
    @usableFromInline
    static func keep(_ spare: Unmanaged<AnyObject>) {
        ThreadContext.withCurrent { context in
            context.spare?.release()
            context.spare = spare
        }
    }

    @usableFromInline
    static func keepsSpares() -> Bool { CacheSwitch.cachesAreOn }
}
