import Foundation
import KVOMediator

/// One registration a thread's controller holds.
struct ThreadedEntry {
    let object: Int
    let key: ThreadedKey
    let tally: ThreadedTally
}

/// One thread's random program in a threaded run: it writes the groups of properties it owns (each
/// with exactly one writing thread), observes them in every form, observes other threads' stored
/// properties in the typed forms that read nothing, and ends what it made (unobserve, invalidate,
/// dropped tokens, controllers and observers), measuring each registration's window (`ThreadedTally`).
struct ThreadProgram {
    let index: Int
    let world: ThreadedWorld
    var random: SplitMix64
    let steps: Int
    var observers: [ModelObserver?] = [nil, nil]
    /// The registrations of each observer's controller.
    var entries: [[ThreadedEntry]] = [[], []]
    var tokens: [(token: KVOObservation, tally: ThreadedTally)?] = [nil, nil, nil]
    private var made = 0

    init(index: Int, world: ThreadedWorld, seed: UInt64, steps: Int) {
        self.index = index
        self.world = world
        self.random = SplitMix64(state: seed &+ UInt64(index) &* 0x9E37_79B9)
        self.steps = steps
    }

    /// A number no other thread uses (observers, delegate contexts).
    mutating func unique() -> Int {
        made += 1
        return (index + 1) << 32 | made
    }

    func owns(_ key: ThreadedKey) -> Bool {
        world.writer(of: key) == index
    }

    mutating func run() {
        for _ in 0..<steps {
            switch random.below(100) {
            case 0..<45: if !write() { observe() }
            case 45..<70: observe()
            case 70..<85: end()
            case 85..<93: churn()
            default: registerAndEndByName()
            }
        }
        teardown()
    }

    // MARK: Writes

    /// Writes one property of a group this thread owns; false if it owns none.
    mutating func write() -> Bool {
        let owned = (0..<ThreadedKey.groups).filter { $0 % world.threads == index }
        guard let group = random.element(of: owned) else { return false }
        let slot = random.below(2)
        let root = world.roots[slot]
        let channels = world.channels[slot]
        switch group {
        case 0:
            switch random.below(3) {
            case 0: channels[.x]!.write { root.x = $0 }
            case 1: channels[.y]!.write { root.y = $0 }
            default: root.flag.toggle()
            }
        case 1:
            let assigns = root.songs.count >= 3 || random.chance(30)
            channels[.songs]!.write { number in
                if assigns { root.songs = [number] } else { root.mutableArrayValue(for: \.songs).append(number) }
            }
        case 2:
            let assigns = root.tags.count >= 3 || random.chance(30)
            channels[.tags]!.write { number in
                if assigns { root.tags = [number] } else { root.mutableSetValue(for: \.tags).insert(number) }
            }
        case 3:
            channels[.count]!.write { number in root.withChange(of: \.count) { root.count = number } }
        case 4:
            channels[.level]!.write { root.level = $0 }
        default:
            let index = random.below(2)
            let (b, channels) = (world.linkBs[index], world.channels[2 + index])
            switch random.below(7) {
            case 0: root.a = random.chance(20) ? nil : world.linkAs[random.below(2)]
            case 1: world.linkAs[random.below(2)].b = random.chance(20) ? nil : b
            case 2, 3: channels[.value]!.write { b.value = $0 }
            case 4, 5:
                let assigns = b.items.count >= 3 || random.chance(30)
                channels[.items]!.write { number in
                    if assigns { b.items = [number] } else { b.mutableArrayValue(for: \.items).append(number) }
                }
            default: b.label = random.below(1000)
            }
        }
        return true
    }

    // MARK: Observing

    mutating func observe() {
        let key = random.element(of: ThreadedKey.allCases)!
        let own = owns(key)
        guard own || (key.isObservableFromOtherThreads && world.isDirectSlotPinned(key)) else { return }
        let objectIndex = random.below(2)
        let (object, channel) = world.target(key, index: objectIndex)
        var options = random.options()
        if channel != nil { options.insert(.new) }
        if !own { options.remove(.initial) }
        let form: ThreadedForm
        let forms: [ThreadedForm] =
            own
            ? [.block, .action, .keyPathsBlock, .delegate(context: unique())]
                + (key.stringPath.map { [.string($0)] } ?? [])
            : [.block, .action]
        if random.chance(20) {
            form = .token
        } else {
            form = random.element(of: forms)!
        }
        let name = "thread \(index) \(key)[\(objectIndex)] \(form) \(options)"
        let tally = ThreadedTally(name: name, channel: channel, options: options, countsInitial: own)
        world.journal.add(tally)
        if case .token = form {
            let slot = random.below(tokens.count)
            endToken(in: slot, dropping: true)
            let made = MadeToken()
            key.use(
                on: object,
                ThreadedObservation(
                    form: form,
                    controller: nil,
                    options: options,
                    tally: tally,
                    journal: world.journal,
                    made: made
                )
            )
            tally.didRegister()
            if let token = made.token { tokens[slot] = (token, tally) }
            return
        }
        guard let slot = random.element(of: observers.indices.filter({ observers[$0]?.controller != nil })) else {
            tally.isIgnored = true
            tally.didRegister()
            return
        }
        tally.isIgnored = entries[slot].contains { $0.object == objectIndex && $0.key == key }
        if case .delegate(let context) = form { world.journal.route(context: context, to: tally) }
        let observation = ThreadedObservation(
            form: form,
            controller: observers[slot]!.controller,
            options: options,
            tally: tally,
            journal: world.journal,
            made: nil
        )
        key.use(on: object, observation)
        tally.didRegister()
        if !tally.isIgnored { entries[slot].append(ThreadedEntry(object: objectIndex, key: key, tally: tally)) }
    }

    /// Registers a string key path of a property this thread owns and ends it by name: the pattern
    /// that once read the object's other properties, which other threads are writing.
    mutating func registerAndEndByName() {
        let named = ThreadedKey.allCases.filter { owns($0) && $0.stringPath != nil }
        guard let key = random.element(of: named), let path = key.stringPath,
            let slot = random.element(of: observers.indices.filter({ observers[$0]?.controller != nil })),
            !entries[slot].contains(where: { $0.key == key }), let controller = observers[slot]?.controller
        else { return }
        let (object, channel) = world.target(key, index: random.below(2))
        let tally = ThreadedTally(
            name: "thread \(index) \"\(path)\" briefly",
            channel: channel,
            options: [.new],
            countsInitial: true
        )
        world.journal.add(tally)
        key.use(
            on: object,
            ThreadedObservation(
                form: .string(path),
                controller: controller,
                options: [.new],
                tally: tally,
                journal: world.journal,
                made: nil
            )
        )
        tally.didRegister()
        tally.willEnd()
        if let root = object as? ModelRoot { controller.unobserve(root, keyPath: path) }
        if let b = object as? ModelLinkB { controller.unobserve(b, keyPath: path) }
        tally.didEnd()
    }
}

/// A token made by `ThreadedObservation`.
final class MadeToken {
    var token: KVOObservation?
}
