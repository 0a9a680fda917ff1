import KVOMediator

/// The registration calls, one per front end and kind of target, each feeding its probe.
enum Registering {
    /// Observes through the observer's controller, with a block.
    static func observe(_ object: ObservedObject, by observer: SoakObserver, options: KVOOptions, probe: SequenceProbe)
    {
        guard let controller = observer.controller else { return }
        switch object {
        case .cell(let cell):
            controller.observe(cell, keyPath: \.value, options: options) { observer, _, change in
                SoakObserver.check(observer, in: probe)
                probe.record(change)
            }
        case .root(let root):
            controller.observe(root, keyPath: chainKeyPath, options: options) { observer, _, change in
                SoakObserver.check(observer, in: probe)
                probe.record(change)
            }
        case .racingCell(let link):
            controller.observe(link, keyPath: \.value, options: options) { observer, _, change in
                SoakObserver.check(observer, in: probe)
                probe.record(change)
            }
        case .racingRoot(let root):
            controller.observe(root, keyPath: racingChainKeyPath, options: options) { observer, _, change in
                SoakObserver.check(observer, in: probe)
                probe.record(change)
            }
        }
        observer.probes.append(probe)
    }

    /// Observes once more what the controller already observes: the library must ignore it, so the
    /// block must never run (FBKVOController's rule: the first registration wins).
    static func observeAgain(_ object: ObservedObject, by observer: SoakObserver, label: ProbeLabel) {
        guard let controller = observer.controller else { return }
        let message = "\(label): a second registration of the same key path by the same controller was called"
        switch object {
        case .cell(let cell):
            controller.observe(cell, keyPath: \.value, options: [.initial, .new]) { _, _, _ in
                Violations.shared.report(message)
            }
        case .root(let root):
            controller.observe(root, keyPath: chainKeyPath, options: [.initial, .new]) { _, _, _ in
                Violations.shared.report(message)
            }
        case .racingCell(let link):
            controller.observe(link, keyPath: \.value, options: [.new]) { _, _, _ in Violations.shared.report(message) }
        case .racingRoot(let root):
            controller.observe(root, keyPath: racingChainKeyPath, options: [.new]) { _, _, _ in
                Violations.shared.report(message)
            }
        }
    }

    /// Observes with a token.
    static func token(for object: ObservedObject, options: KVOOptions, probe: SequenceProbe) -> KVOObservation? {
        do {
            switch object {
            case .cell(let cell):
                return try cell.observe(\.value, options: options) { _, change in probe.record(change) }
            case .root(let root):
                return try root.observe(chainKeyPath, options: options) { _, change in probe.record(change) }
            case .racingCell(let link):
                return try link.observe(\.value, options: options) { _, change in probe.record(change) }
            case .racingRoot(let root):
                return try root.observe(racingChainKeyPath, options: options) { _, change in probe.record(change) }
            }
        } catch {
            Violations.shared.report("\(probe.label): observe threw \(error)")
            return nil
        }
    }

    /// Ends one registration of the controller by its key path.
    static func unobserve(_ object: ObservedObject, keyPathOf controller: KVOController<SoakObserver>) {
        switch object {
        case .cell(let cell): controller.unobserve(cell, keyPath: \SoakCell.value)
        case .root(let root): controller.unobserve(root, keyPath: chainKeyPath)
        case .racingCell(let link): controller.unobserve(link, keyPath: \RacingLink.value)
        case .racingRoot(let root): controller.unobserve(root, keyPath: racingChainKeyPath)
        }
    }

    /// Ends every registration of the controller on the object.
    static func unobserve(_ object: ObservedObject, allOf controller: KVOController<SoakObserver>) {
        switch object {
        case .cell(let cell): controller.unobserve(cell)
        case .root(let root): controller.unobserve(root)
        case .racingCell(let link): controller.unobserve(link)
        case .racingRoot(let root): controller.unobserve(root)
        }
    }
}
