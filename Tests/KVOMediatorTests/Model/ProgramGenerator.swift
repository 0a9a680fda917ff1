import Foundation
import KVOMediator

/// SplitMix64: a small deterministic generator, so that a seed replays its program exactly.
struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// True `percent` times in a hundred.
    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    mutating func element<T>(of items: [T]) -> T? {
        items.isEmpty ? nil : items[below(items.count)]
    }

    mutating func options() -> KVOOptions {
        KVOOptions(rawValue: UInt(below(16)))
    }

    /// `options()`, and for one registration in four `.distinct` in place of `.prior` (the model follows
    /// `.distinct` without `.prior`; the two together are `DistinctOptionTests`' cases).
    mutating func observationOptions() -> KVOOptions {
        var options = self.options()
        if below(4) == 0 {
            options.insert(.distinct)
            options.remove(.prior)
        }
        return options
    }
}

/// Generates a program operation by operation against the reference model, so that every operation
/// is valid where it stands (a removal names an index the array has).
struct ProgramGenerator {
    var random: SplitMix64
    var model = ReferenceModel()
    /// Values are numbered, so that every record tells which write it comes from.
    private var nextValue = 1

    init(seed: UInt64) {
        random = SplitMix64(state: seed)
    }

    /// The program of `length` operations that `seed` stands for.
    static func program(seed: UInt64, length: Int) -> [ModelOperation] {
        var generator = ProgramGenerator(seed: seed)
        return (0..<length).map { _ in generator.next() }
    }

    mutating func next() -> ModelOperation {
        while true {
            if let operation = candidate() {
                _ = model.apply(operation)
                return operation
            }
        }
    }

    mutating func freshValue() -> Int {
        defer { nextValue += 1 }
        return nextValue
    }

    /// An operation of a kind picked by weight, or nil when the world has nothing it could act on.
    private mutating func candidate() -> ModelOperation? {
        if model.rootSlots.allSatisfy({ $0 == nil }) && random.chance(60) { return .newRoot(slot: random.below(2)) }
        if model.observerSlots.allSatisfy({ $0 == nil }) && random.chance(60) {
            return .newObserver(slot: random.below(3), retains: random.chance(30))
        }
        switch random.below(100) {
        case 0..<6: return objectLifetime()
        case 6..<11: return observerLifetime()
        case 11..<52: return write()
        case 52..<72: return observe()
        case 72..<78: return unobserve()
        case 78..<86: return token()
        case 86..<95: return stream()
        case 95..<98: return arm()
        default: return .deliverCoalesced
        }
    }

    // MARK: Picking what exists

    func filled(_ slots: [Int?]) -> [Int] {
        slots.indices.filter { slots[$0] != nil }
    }

    mutating func someRoot() -> Int? {
        random.element(of: filled(model.rootSlots))
    }

    /// An observer slot whose observer has a controller.
    mutating func someControllerSlot() -> Int? {
        random.element(of: model.observerSlots.indices.filter { model.controller(ofObserverIn: $0) != nil })
    }

    /// A root (mostly) or a last link to observe.
    mutating func someTarget() -> ModelTarget? {
        if random.chance(20), let b = random.element(of: filled(model.linkBSlots)) { return .linkB(b) }
        return someRoot().map { .root($0) }
    }

    mutating func someKey(of target: ModelTarget) -> ModelKey {
        if case .linkB = target { return random.element(of: ModelKey.linkBKeys)! }
        return random.element(of: ModelKey.rootKeys)!
    }

    /// A key of `target`, or for a root one time in ten its crew's values element by element.
    mutating func someKeyOrEach(of target: ModelTarget) -> ModelKey {
        if case .root = target, random.chance(10) { return someEachKey() }
        return someKey(of: target)
    }

    /// A root's crew (an array) or squad (a set), observed element by element.
    mutating func someEachKey() -> ModelKey {
        random.chance(50) ? .eachCrewValue : .eachSquadValue
    }

    /// A slot of `slots` or nil (`= nil`) one time in six.
    mutating func someLink(_ slots: [Int?]) -> Int? {
        random.chance(16) ? nil : random.element(of: filled(slots))
    }

    // MARK: Lifetimes

    /// Links are made twice as often as they are dropped, so that chains are often whole.
    private mutating func objectLifetime() -> ModelOperation? {
        switch random.below(8) {
        case 0: return .newRoot(slot: random.below(2))
        case 1: return random.element(of: filled(model.rootSlots)).map { .dropRoot(slot: $0) }
        case 2, 3: return .newLinkA(slot: random.below(2))
        case 4: return random.element(of: filled(model.linkASlots)).map { .dropLinkA(slot: $0) }
        case 5, 6: return .newLinkB(slot: random.below(2), value: freshValue())
        default: return random.element(of: filled(model.linkBSlots)).map { .dropLinkB(slot: $0) }
        }
    }

    private mutating func observerLifetime() -> ModelOperation? {
        let observer = random.element(of: filled(model.observerSlots))
        switch random.below(7) {
        case 0, 1: return .newObserver(slot: random.below(3), retains: random.chance(30))
        case 2: return observer.map { .dropObserver(slot: $0) }
        case 3: return observer.map { .newController(observer: $0, retains: random.chance(30)) }
        case 4: return observer.map { .dropController(observer: $0) }
        case 5: return observer.map { .orphanController(observer: $0) }
        default: return model.orphans.isEmpty ? nil : .dropOrphans
        }
    }

    private mutating func arm() -> ModelOperation? {
        let armable = model.orderedRegistrations.filter { registration in
            switch registration.front {
            // (Not one of a weak peer: its peer's death may or may not be announced; see the model.)
            // (Nor a coalescing one: its callbacks run on the lane, after the change.)
            case .controller, .token:
                model.isCallable(registration) && registration.key != .peerValue && registration.coalescing == nil
            case .valueStream, .changeStream: false
            }
        }
        guard let registration = random.element(of: armable) else { return nil }
        let action: ArmedAction =
            switch random.below(3) {
            case 0: .dropObserver(random.below(3))
            case 1: .dropController(random.below(3))
            default: .invalidateToken(random.below(4))
            }
        return .arm(registration: registration.id, action: action)
    }

    // MARK: Observing

    private mutating func observe() -> ModelOperation? {
        guard let slot = someControllerSlot(), let target = someTarget() else { return nil }
        if case .root = target, random.chance(10) {
            return .observe(
                observer: slot,
                form: random.chance(35) ? .coalesced : .block,
                target: target,
                keys: [someEachKey()],
                options: random.observationOptions()
            )
        }
        let form = random.element(of: ObserveForm.allCases)!
        var keys = [someKey(of: target)]
        if form == .keyPathsBlock || form == .delegate, random.chance(40) {
            let second = someKey(of: target)
            if second != keys[0] { keys.append(second) }
        }
        if form == .string {
            guard let key = keys.first, key.stringPath != nil else { return nil }
        }
        // (A weak peer's death may or may not be announced, which a merged record cannot show.)
        if form == .coalesced, keys.first == .peerValue { return nil }
        return .observe(observer: slot, form: form, target: target, keys: keys, options: random.observationOptions())
    }

    private mutating func unobserve() -> ModelOperation? {
        guard let slot = someControllerSlot() else { return nil }
        switch random.below(10) {
        case 0: return .unobserveAll(observer: slot)
        case 1, 2: return someTarget().map { .unobserveObject(observer: slot, target: $0) }
        default:
            let controller = model.controller(ofObserverIn: slot)
            let mine = model.orderedRegistrations.filter { $0.controller == controller }
            guard let registration = random.element(of: mine) else { return nil }
            let target =
                model.rootSlots.firstIndex(of: registration.object).map(ModelTarget.root)
                ?? model.linkBSlots.firstIndex(of: registration.object).map(ModelTarget.linkB)
            guard let target else { return nil }
            let byString = registration.key.stringPath != nil && random.chance(40)
            return .unobserveKey(observer: slot, target: target, key: registration.key, byString: byString)
        }
    }

    private mutating func token() -> ModelOperation? {
        let tokens = filled(model.tokenSlots)
        switch random.below(6) {
        case 0: return random.element(of: tokens).map { .invalidateToken(slot: $0) }
        case 1: return random.element(of: tokens).map { .dropToken(slot: $0) }
        default:
            guard let target = someTarget() else { return nil }
            let key = someKeyOrEach(of: target)
            return .newToken(slot: random.below(4), target: target, key: key, options: random.observationOptions())
        }
    }

    private mutating func stream() -> ModelOperation? {
        let open = filled(model.streamSlots.map { $0?.registration })
        let free = model.streamSlots.indices.filter { model.streamSlots[$0] == nil }
        if random.chance(35) { return random.element(of: open).map { .closeStream(slot: $0) } }
        guard let slot = random.element(of: free), let target = someTarget() else { return nil }
        let key = someKey(of: target)
        if random.chance(50) { return .openValues(slot: slot, target: target, key: key) }
        if case .root = target, random.chance(12) {
            return .openChanges(slot: slot, target: target, key: someEachKey(), options: random.observationOptions())
        }
        return .openChanges(slot: slot, target: target, key: key, options: random.observationOptions())
    }
}
