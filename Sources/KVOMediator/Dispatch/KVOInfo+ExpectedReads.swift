/// A registration's side of an evaluation that reads what the last one read (`AccessTracker+ExpectedReads`):
/// its dependencies copied for the tracker, the reads matched recorded, and the same reads applied.
extension KVOInfo {
    /// Copies the dependencies into the first elements of `expected` (see `AccessTracker+ExpectedReads`)
    /// and the applied ticket into `since`, and returns how many there are, when each is an `@Observed`
    /// slot; else returns 0.
    final func copyDependencies(
        into expected: inout [(registrar: ObjectIdentifier, field: Int)],
        since: inout UInt16
    ) -> Int {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        defer { lock.unlock() }
        guard !state.isClosed else { return 0 }
        for index in state.dependencies.indices {
            guard case .field(let field) = state.dependencies[index].slot else { return 0 }
            let read = (state.dependencies[index].registrarID, field)
            if index < expected.count { expected[index] = read } else { expected.append(read) }
        }
        since = appliedTicket
        return state.dependencies.count
    }

    /// Gives `record` a read of each of the first `count` of `expected` (the dependencies copied when
    /// the applied ticket was `since`), retaining its registrar, when no evaluation was applied since and
    /// each is still listed; else returns false (and gives only some, or none).
    final func recordListedReads(
        _ expected: [(registrar: ObjectIdentifier, field: Int)],
        count: Int,
        since: UInt16,
        _ record: (Access) -> Void
    ) -> Bool {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        defer { lock.unlock() }
        guard !state.isClosed, appliedTicket == since else { return false }
        for read in expected[0..<count] {
            guard let index = state.dependencies.indices.first(where: { state.isField($0, read) }),
                let registrar = state.dependencies[index].retainedRegistrar()
            else { return false }
            // (Released with the read, after this lock, when the tracker is cleared.) The property's key
            // path and class, which tell a chain's links, are the ones its registrar was subscribed with.
            let listed = registrar.takeRetained()
            let facts = listed.subscribedFacts(field: read.field)
            record(
                Access(
                    registrar: listed,
                    slot: .field(read.field),
                    wrapped: facts.wrapped,
                    objectType: facts.objectType
                )
            )
        }
        return true
    }

    /// For an evaluation with `tracker` that read exactly the reads it expected (its first `expectedCount`
    /// of `expected`, the dependencies copied when the applied ticket was `expectedSince`): applies its
    /// ticket, if it is newer, and runs `underLock` (told whether it was applied: see `prune`), unless an
    /// evaluation was applied since or the dependencies changed meanwhile; then returns false, and the
    /// caller records the reads (or evaluates again). (The tracker's reads are compared in place: passed
    /// as an array, they were retained and released.)
    final func applySameReads(
        of tracker: AccessTracker,
        ticket: UInt16,
        underLock: (_ applied: Bool) -> Void
    ) -> Bool {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        defer { lock.unlock() }
        guard !state.isClosed else {
            underLock(false)
            return true
        }
        guard appliedTicket == tracker.expectedSince,
            state.isExactly(count: tracker.expectedCount, { tracker.expected[$0] })
        else { return false }
        let applied = RegistrationState.isNewer(ticket, than: appliedTicket)
        if applied { appliedTicket = ticket }
        underLock(applied)
        return true
    }
}
