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
/// alive. One spare per thread (see `_ThreadSpare` for arrays of several element types, and for a mutation
/// inside a callback of a mutation, which allocates as before); none with every cache off (``CacheSwitch``).
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
            // (Moved out for the call and back after it, where a copy would retain the storage and release it.)
            var elements: [Element] = []
            swap(&elements, &spare.elements)
            elements.append(element)
            let result = body(elements)
            elements.removeLast()
            swap(&elements, &spare.elements)
            return result
        } otherwise: {
            body([element])
        }
    }
}

/// This thread's spare object of one class, kept between uses (see `_OneElementArray`): held by the
/// thread's slot (one retain), and taken from it while in use; a use inside a use goes without one.
@usableFromInline
enum _ThreadSpare {
    /// Calls `body` with this thread's spare `Spare`, made by `make` if the thread holds none; calls
    /// `otherwise` instead while the thread's spare is in use (a use inside `body`), and when spares are not
    /// kept (every cache off: see `CacheSwitch`).
    ///
    /// A spare of another class stays for its class, and this use goes without, unless the use before this
    /// one also went without: then uses of `Spare` look lasting, and its spare replaces the other. So uses
    /// of two classes in turn make no spare each time, and a thread that moves to another class moves its
    /// spare too.
    @inlinable
    @inline(__always)
    static func with<Spare: AnyObject, Result>(
        _ make: () -> Spare,
        _ body: (Spare) -> Result,
        otherwise: () -> Result
    ) -> Result {
        // (Taken and kept unmanaged: the slot's one reference passes back and forth with no reference counting.)
        let (taken, isFree, lastWentWithout) = take()
        guard isFree else { return otherwise() }
        let spare: Unmanaged<Spare>
        let isSpare = taken?._withUnsafeGuaranteedRef { ObjectIdentifier(type(of: $0)) == ObjectIdentifier(Spare.self) }
        if let taken, isSpare == true {
            spare = Unmanaged.fromOpaque(taken.toOpaque())
        } else if let taken, !lastWentWithout {
            keep(taken, wentWithout: true)
            return otherwise()
        } else {
            taken?.release()
            spare = Unmanaged.passRetained(make())
        }
        let result = spare._withUnsafeGuaranteedRef(body)
        keep(Unmanaged.fromOpaque(spare.toOpaque()), wentWithout: false)
        return result
    }

    /// The spare, no longer the slot's (nil when there is none), for a use that `isFree` to have one: then
    /// the slot is in use until `keep`, and the caller keeps the spare or releases it. Not free while the
    /// slot is in use, nor with every cache off. `lastWentWithout`: the last use did not use the spare.
    @usableFromInline
    static func take() -> (spare: Unmanaged<AnyObject>?, isFree: Bool, lastWentWithout: Bool) {
        ThreadContext.withCurrent { context in
            guard !context.spareInUse else { return (nil, false, false) }
            let spare = context.spare
            // (A thread holds a spare only with caches on.)
            guard spare != nil || CacheSwitch.cachesAreOn else { return (nil, false, false) }
            context.spare = nil
            context.spareInUse = true
            return (spare, true, context.spareWentWithout)
        }
    }

    /// Puts `spare` (taken, or made) in the thread's slot, which is no longer in use; `wentWithout`: this use
    /// did not use it.
    @usableFromInline
    static func keep(_ spare: Unmanaged<AnyObject>, wentWithout: Bool) {
        ThreadContext.withCurrent { context in
            assert(context.spareInUse && context.spare == nil)
            context.spare = spare
            context.spareInUse = false
            context.spareWentWithout = wentWithout
        }
    }
}
