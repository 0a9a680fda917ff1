/// What tests ask of a registrar.
extension KVORegistrar {
    /// How many entries a registrar scans before it indexes its `@Observed` properties.
    static var fieldIndexThresholdForTests: Int { State.fieldIndexThreshold }

    /// How many registrations depend on this object, over all slots.
    var registrationCount: Int {
        withState { $0.registrationCount }
    }

    /// How many weak properties hold this object.
    var weakLinkCount: Int {
        withWeakLinks { $0.count }
    }
}

extension KVORegistrar.State {
    var registrationCount: Int {
        slots.reduce(lifetimeInfos.count + (firstSlot?.infos.count ?? 0)) { $0 + $1.infos.count }
    }
}
