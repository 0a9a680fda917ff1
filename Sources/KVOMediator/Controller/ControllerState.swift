/// What a ``KVOController``'s lock guards: its registrations, the objects it retains, and whether it
/// ever observed a string key path.
struct ControllerState {
    /// The registrations, by observed object. An object is keyed by its address, which no other
    /// object can take while it has registrations here: the object's deinit removes its registrations
    /// from their controllers before its memory goes, and each registration keeps that memory until it
    /// is cancelled and idle (`ObjectPin`), which happens only once it has left the table.
    var table = RegistrationTable()
    /// The observed objects, when the controller `retainsObserved`.
    var retainedObjects: [ObjectIdentifier: AnyObject] = [:]
    /// The observations of collections' elements (`observe(_:each:keyPath:…)`), by observed object, each
    /// with its collection's and its elements' key paths (what tells two apart) and, when the controller
    /// `retainsObserved`, the object.
    var elementObservations: [ObjectIdentifier: [ElementObservationEntry]] = [:]
    /// Whether a string key path was ever observed here: until then, an unobserve by a typed key path
    /// has no string form to look for.
    var hasObservedStrings = false

    /// The observation of `keyPath` of the elements of `collection` of the object at `id`, if one is kept.
    func elementObservation(
        of id: ObjectIdentifier,
        _ collection: AnyKeyPath,
        _ keyPath: AnyKeyPath
    ) -> ElementObservationEntry? {
        elementObservations[id]?.first { $0.collection == collection && $0.keyPath == keyPath }
    }

    /// Forgets the observations of elements of the object at `id` that have ended (the object deinitialised:
    /// one later made at its address is another object).
    /// Returns them, to be released by the caller with the lock no longer held (their end waits for
    /// callbacks running on other threads).
    mutating func pruneElementObservations(of id: ObjectIdentifier) -> [ElementObservationEntry] {
        guard let entries = elementObservations[id] else { return [] }
        let live = entries.filter(\.isLive)
        if live.count == entries.count { return [] }
        elementObservations[id] = live.isEmpty ? nil : live
        return entries.filter { !$0.isLive }
    }

    /// Takes the observations of elements of the object at `id` that `matches` picks out of the table.
    /// Returns them, to be ended or released by the caller with the lock no longer held.
    mutating func removeElementObservations(
        of id: ObjectIdentifier,
        where matches: (ElementObservationEntry) -> Bool
    ) -> [ElementObservationEntry] {
        guard let entries = elementObservations[id] else { return [] }
        let kept = entries.filter { !matches($0) }
        elementObservations[id] = kept.isEmpty ? nil : kept
        return entries.filter(matches)
    }

    /// Stops retaining the object once it has no registrations here, and returns it, to be released
    /// by the caller with the lock no longer held (its deinit may call back into the controller).
    mutating func releaseIfUnobserved(_ id: ObjectIdentifier) -> AnyObject? {
        guard !retainedObjects.isEmpty, !table.contains(id) else { return nil }
        return retainedObjects.removeValue(forKey: id)
    }
}

/// One observation of a collection's elements held by a controller (see `ControllerState`). It is kept
/// from the start of `observe`: a second `observe` of the same meanwhile is ignored (it would deliver a
/// second `.initial`), and an unobserve meanwhile ends the observation as soon as it is made.
struct ElementObservationEntry {
    let collection: AnyKeyPath
    let keyPath: AnyKeyPath
    /// Ends the observation (its collection's and its elements' registrations) when invalidated; nil
    /// while `observe` makes it.
    var token: KVOObservation?
    /// Tells this entry from one made later for the same collection and key path.
    let reservation: ElementReservation
    let retained: AnyObject?

    /// Whether it is being made, or made and not ended (its object did not deinitialise).
    var isLive: Bool { token?.isValid ?? true }

    /// `each of tracks: title`, as records name the collection and an element's property; the elements'
    /// key path is named by the name its type declares, or `<property of Track>`, while no element is
    /// registered. Nil while it is being made.
    var name: String? {
        guard let token else { return nil }
        let element =
            token.elementKeyPathName
            ?? {
                let root = type(of: keyPath).rootType
                return (root as? any KeyValueObservable.Type)?.keyPathName(for: keyPath) ?? "<property of \(root)>"
            }()
        return "each of \(token.info.keyPathName): \(element)"
    }

    /// Ends it (taken from the controller's state by an unobserve): no callback of it starts after this
    /// returns, also while another thread is still making it. With the lock no longer held (an end waits
    /// for callbacks running on other threads).
    func end() {
        reservation.end()
        token?.invalidate()
    }
}
