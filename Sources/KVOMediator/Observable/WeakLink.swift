import Synchronization

/// One `@ObservedWeak` property's hold on its referent, as the referent's registrar lists it: when the
/// referent deinitialises, its registrar hands the link back, and the link announces the property's
/// change to nil on the holder.
///
/// A link ends exactly once, by whichever comes first: the referent's death (``referentDidDeinit()``,
/// which then announces) or the property letting the referent go (``detach()``: a new value, or the
/// holder going away), which silences it. Neither side keeps the other alive: the registrar holds the
/// link, and the link holds the holder as a registration holds its object (see `ObjectPin`: its memory
/// stays until the link goes, so loading it from the referent's thread is safe while the holder dies
/// on another).
class WeakLink: @unchecked Sendable {  // `state` is atomic; the rest is immutable
    /// 0: linked; 1: ended by the referent's death; 2: ended by the property.
    private let state = Atomic<UInt8>(0)

    /// Ends the link for the property; false when the referent's death ended it first (and announces).
    final func detach() -> Bool {
        state.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing).exchanged
    }

    /// Ends the link for the referent's death: true when the property had not let the referent go.
    final func endForReferentDeath() -> Bool {
        state.compareExchange(expected: 0, desired: 1, ordering: .acquiringAndReleasing).exchanged
    }

    /// The referent deinitialised: announces the property's change to nil, unless the link ended first.
    func referentDidDeinit() {}

    /// Called by a deinitialising registrar with the links of the weak properties that held its object,
    /// after it has ended the registrations on the object, with no lock held.
    static func referentDidDeinit(_ links: [WeakLink]) {
        for link in links { link.referentDidDeinit() }
    }
}

/// The link of an `@ObservedWeak` property of a `Holder`, whose storage is at byte offset `field`.
final class TypedWeakLink<Holder: KeyValueObservable, Referent: KeyValueObservable>: WeakLink, @unchecked Sendable {
    private let holder: ObjectPin<Holder>
    private let field: Int
    /// The property's key path, for a holder that bridges to Swift's Observation (nil: set by name).
    private let wrapped: AnyKeyPath?

    init(holder: Holder, field: Int, wrapped: AnyKeyPath?) {
        self.holder = ObjectPin(holder)
        self.field = field
        self.wrapped = wrapped
    }

    deinit {
        holder.unpin()
    }

    /// Announced as a set from nil to nil: the referent cannot be handed out as the old value while it
    /// deinitialises. Chains through the property re-read it and find nil. Nothing when the holder has
    /// started deinitialising too, or has no observer.
    override func referentDidDeinit() {
        guard endForReferentDeath(), let holder = holder.load() else { return }
        if Holder._reportsToObservation, let wrapped {
            Holder._withObservationMutation(
                of: holder,
                keyPath: { wrapped },
                field: field,
                valueType: Referent?.self,
                { announce(on: holder) }
            )
        } else {
            announce(on: holder)
        }
    }

    private func announce(on holder: Holder) {
        let registrar = holder.kvoRegistrar
        guard registrar._hasObservers else { return }
        let none: Referent? = nil
        _withValuePointer(to: none) { nothingPointer in
            let nothing = ValueAddress(nothingPointer)
            // Nothing to store: the property's weak reference already loads nil. (A change all the same,
            // for `.distinct`, whose old value reads nil too.)
            ThreadContext.announcingDeath {
                registrar._change(field: field, of: holder, oldValue: nothing, newValue: nothing, type: Referent?.self)
                {}
            }
        }
    }
}

/// What an `@ObservedWeak` property stores while it holds a referent: the weak reference the getter
/// loads, and the link the referent's registrar lists. Dropping it (a new value, the holder going)
/// ends the link, so that the referent's later death notifies nothing.
final class ObservedWeakReference<Referent: KeyValueObservable>: @unchecked Sendable {  // immutable
    /// The referent; nil once it has started deinitialising.
    weak let referent: Referent?
    private let link: WeakLink

    /// Links `referent` to the property of `holder` whose storage is at byte offset `field` (and whose
    /// key path is `wrapped`, when known).
    init<Holder: KeyValueObservable>(_ referent: Referent, holder: Holder, field: Int, wrapped: AnyKeyPath?) {
        let registrar = referent.kvoRegistrar
        // A computed `kvoRegistrar` would drop the link at once, announcing a death that did not happen.
        registrar.verifyStored(in: referent)
        self.referent = referent
        self.link = TypedWeakLink<Holder, Referent>(holder: holder, field: field, wrapped: wrapped)
        registrar.addWeakLink(link)
    }

    deinit {
        unlink()
    }

    /// Ends the link, unless the referent's death ended it first; idempotent.
    func unlink() {
        guard link.detach() else { return }
        // Nil once the referent deinitialises: its registrar then drops the link itself, and finds it detached.
        referent?.kvoRegistrar.removeWeakLink(link)
    }
}
