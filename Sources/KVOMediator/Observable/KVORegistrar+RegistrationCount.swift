/// How many registrations an object has: what a leak test checks.
extension KVORegistrar {
    /// How many registrations depend on this object now: those observing it, and those that read it on
    /// their way (a link of a chain, a dependency of a computed property), each counted once however many of
    /// its properties it reads. 0 once everything that observed it has ended.
    ///
    /// ```swift
    /// var screen: ProfileScreen? = ProfileScreen(profile: profile)
    /// screen = nil
    /// #expect(profile.kvoRegistrar.registrationCount == 0)   // the screen's controller ended its registrations
    /// ```
    ///
    /// - Complexity: O(*n*) in the object's registrations, under its lock: for tests and diagnostics, not for
    ///   a hot path.
    public var registrationCount: Int {
        withState { state in
            var seen = Set<ObjectIdentifier>()
            for info in state.lifetimeInfos { seen.insert(ObjectIdentifier(info)) }
            for entry in [state.firstSlot].compactMap({ $0 }) + state.slots {
                for info in entry.infos { seen.insert(ObjectIdentifier(info)) }
            }
            return seen.count
        }
    }
}
