/// What tests ask of a registrar.
extension KVORegistrar {
    /// How many entries a registrar scans before it indexes its `@Observed` properties.
    static var fieldIndexThresholdForTests: Int { State.fieldIndexThreshold }

    /// How many subscriptions the object's table holds: a registration once for each slot it reads (see
    /// ``registrationCount`` for each once).
    var subscriptionCount: Int {
        withState { $0.subscriptionCount }
    }

    /// How many weak properties hold this object.
    var weakLinkCount: Int {
        withWeakLinks { $0.count }
    }
}

extension KVORegistrar.State {
    var subscriptionCount: Int {
        slots.reduce(lifetimeInfos.count + (firstSlot?.infos.count ?? 0)) { $0 + $1.infos.count }
    }
}
