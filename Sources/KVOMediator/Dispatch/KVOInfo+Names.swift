/// How a registration names itself for its records (``KVOChange/keyPathName``): from its string key path,
/// its declared name, the chain it follows, or what it reads (`Observable/KeyPathNames.swift`).
extension KVOInfo {
    /// The dotted property names this registration follows now (its string key path, or its typed key
    /// path's when that is a chain of `@Observed` properties whose every link is there): what lets the
    /// string and typed forms meet.
    ///
    /// While a link is nil, Swift gives no way to tell which properties a typed key path reads past it,
    /// so it has no name path then: the forms meet while the chain can be followed to its end. Found
    /// from what this registration reads now, never from another registration or an earlier time, so
    /// that the same program makes the same registrations whatever ran before it.
    var namePath: String? {
        if let stringKeyPath { return stringKeyPath }
        guard let name = chainName(of: keyPath, reads: dependencySlots()) else { return directName() }
        learn(name, isChain: true)
        return name
    }

    /// Keeps the name of the chain `accesses` read, whole (when the registration starts).
    func learnChainName(from accesses: [Access]) {
        if let known = ChainNames.table.payload(of: keyPath) { return adopt(known) }
        guard let name = chainName(of: keyPath, reads: namedReads(accesses)) else { return }
        let learnt = LearntName(name: name, isChain: true)
        ChainNames.table.update(keyPath) { $0 = learnt }
        adopt(learnt)
    }

    /// Keeps `learnt` as this registration's name (see `learn`).
    private func adopt(_ learnt: LearntName) {
        learn(learnt.name, isChain: learnt.isChain, as: learnt)
    }

    /// The chain's name this registration found itself when it was last followed to its end, for its
    /// records while a link is nil or after it ended (nil if it never was, or is no chain).
    var learntChainName: String? {
        learntName.flatMap { $0.isChain ? $0.name : nil }
    }

    /// The name of a key path that is not a chain: what it reads now, or what it read when it was last
    /// named (before it ended, say).
    func unchainedName() -> String {
        let reads = dependencySlots()
        if !reads.isEmpty { return computedName(reading: reads) }
        return learntName?.name ?? "<computed>"
    }

    /// Keeps this registration's name before its reads are dropped (it ends), for records of it read
    /// after. Called only if it delivered a record (``KVOInfo/madeRecord``), the only thing that asks for
    /// a name after the end.
    func learnNameBeforeEnding() {
        // (A registration of one `@Observed` property is named by its slot, which stays after it ends.)
        guard !isNamedByItsSlot, stringKeyPath == nil, declaredName() == nil else { return }
        if namePath != nil { return }
        let reads = dependencySlots()
        if !reads.isEmpty { learn(computedName(reading: reads), isChain: false) }
    }

    /// The name this registration found itself (`namePath`, `learnNameBeforeEnding`), if any.
    private var learntName: LearntName? {
        StripedLocks.lock(for: self).withLock { extrasReference.withInstance { $0.learntName } ?? nil }
    }

    /// Keeps `name` (as `learnt`, if given, else a new one); a chain's name is not replaced by a computed
    /// one, and the same name is not kept again.
    private func learn(_ name: String, isChain: Bool, as learnt: LearntName? = nil) {
        let replaced: LearntName? = StripedLocks.lock(for: self).withLock {
            unretainedExtrasCreating().with { extras in
                if let current = extras.learntName, current.isChain && !isChain || current.name == name { return nil }
                defer { extras.learntName = learnt ?? LearntName(name: name, isChain: isChain) }
                return extras.learntName
            }
        }
        _ = replaced  // released here, outside the lock
    }
}

/// The names of whole chains, by key path object: an accelerator only. A whole chain's name is a
/// function of its key path alone (its components are its links', each named by its field), so a miss,
/// or caches off (``CacheSwitch``), finds the same name by reading the evaluation's reads again.
enum ChainNames {
    static let table = KeyPathTable<LearntName>(capacity: 256)
}

/// A name a registration found itself (kept in its ``KVOInfo/Extras``): a chain's, or one computed from
/// what it read.
final class LearntName: Sendable {
    let name: String
    let isChain: Bool

    init(name: String, isChain: Bool) {
        (self.name, self.isChain) = (name, isChain)
    }
}
