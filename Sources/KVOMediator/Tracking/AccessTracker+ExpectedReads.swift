/// A re-evaluation that reads what the last evaluation read, in the same order, records nothing.
///
/// Before it starts, the tracker copies the registration's dependencies (when each is an `@Observed`
/// slot) and its applied ticket, or takes the ones it remembers from applying the last evaluation on
/// this thread (see `expect(dependenciesOf:)`). Each read is compared with the next one expected, by registrar address
/// and field: a match is counted, not recorded (no `Access` made, no reference retained, no subscription:
/// the slot was listed when the evaluation began), and a read of a slot matched already is a repeat.
/// When every read matched, and no other evaluation was applied and the dependencies are the ones copied,
/// the registration applies the evaluation's ticket and delivers (`KVOInfo.applySameReads`): nothing to
/// prune. At the first read that was not expected (the key path now reads something else), or at the end
/// when fewer were read, the reads matched so far are recorded from the dependencies they matched, which
/// are still listed (`stopExpecting`; with no object, so an evaluation that ends at one of them is not
/// taken for a chain: `KVOInfo.isChain`), and the evaluation goes on as any other: each further read is
/// recorded and subscribed as it happens, and the reads are pruned to. Only when another evaluation
/// changed the dependencies meanwhile is the key path evaluated again, in full.
extension AccessTracker {
    /// What a read is to the expected ones.
    enum ExpectedRead {
        /// The next expected read (counted, not recorded).
        case first
        /// A repeat of an expected read made already.
        case again
        /// Not expected, or nothing is: recorded.
        case unexpected
    }

    /// Expects the reads of `registration`'s dependencies, in order; false (nothing expected) unless
    /// there are some and each is an `@Observed` slot.
    ///
    /// When this thread's tracker applied the registration's newest evaluation itself, with every read
    /// expected, it still has those dependencies (`remembered`): then, while no other evaluation was
    /// applied since, they are expected again with no lock taken. They are a guess that the locked steps
    /// check, as they check a copy (`applySameReads`, `recordListed`). (Nor is `closed` checked: a
    /// registration cancelled meanwhile is found closed by those steps, and delivers nothing.)
    func expect(dependenciesOf registration: KVOInfo) -> Bool {
        let address = Unmanaged.passUnretained(registration).toOpaque()
        if let remembered, remembered.registration == address, remembered.ticket == registration.appliedTicket {
            expectedCount = remembered.count
            expectedSince = remembered.ticket
            return true
        }
        remembered = nil
        expectedCount = registration.copyFieldDependencies(into: &expected, since: &expectedSince)
        return expectedCount > 0
    }

    /// After `applySameReads` applied `ticket` for the registration at `registration`, whose dependencies
    /// are the first `expectedCount` of `expected`: remembers them for its next evaluation on this thread.
    func remember(appliedBy registration: UnsafeMutableRawPointer, ticket: UInt16) {
        remembered = (registration, ticket, expectedCount)
    }

    /// Ends matching: the reads matched so far are recorded (as reads of the dependencies they matched,
    /// which stay subscribed), unless the dependencies changed since they were copied; then `matched` is
    /// ``AccessTracker/mustRecordAgain`` and the caller evaluates again.
    func stopExpecting() {
        let count = matched
        matched = Self.stoppedMatching
        guard count > 0, let registration else { return }
        let recorded = registration._withUnsafeGuaranteedRef { info in
            info.recordListed(expected, count: count, since: expectedSince) { accesses.append($0) }
        }
        if !recorded { matched = Self.mustRecordAgain }
    }

    /// Whether the reads could not all be recorded (see `stopExpecting`): the caller evaluates again.
    var mustEvaluateAgain: Bool { matched == Self.mustRecordAgain }

    /// A read of `field` of `registrar`, compared with the reads expected.
    @inline(__always)
    func expectedRead(of registrar: KVORegistrar, field: Int) -> ExpectedRead {
        guard matched >= 0, expectedCount > 0 else { return .unexpected }
        let address = Unmanaged.passUnretained(registrar).toOpaque()
        if matched < expectedCount, expected[matched].registrar == address, expected[matched].field == field {
            matched &+= 1
            readCount &+= 1
            return .first
        }
        for index in 0..<matched where expected[index].registrar == address && expected[index].field == field {
            readCount &+= 1
            return .again
        }
        stopExpecting()
        return .unexpected
    }

    /// Whether the evaluation read exactly the reads expected (and so recorded none).
    var readAllExpected: Bool {
        expectedCount > 0 && matched == expectedCount && accesses.isEmpty
    }
}

extension KVOInfo {
    /// Copies the dependencies into the first elements of `expected` (see `AccessTracker+ExpectedReads`)
    /// and the applied ticket into `since`, and returns how many there are, when each is an `@Observed`
    /// slot; else returns 0.
    final func copyFieldDependencies(
        into expected: inout [(registrar: UnsafeMutableRawPointer, field: Int)],
        since: inout UInt16
    ) -> Int {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return 0 }
        for index in dependencies.indices {
            guard case .field(let field) = dependencies[index].slot else { return 0 }
            let read = (dependencies[index].registrar.toOpaque(), field)
            if index < expected.count { expected[index] = read } else { expected.append(read) }
        }
        since = appliedTicket
        return dependencies.count
    }

    /// Gives `record` a read of each of the first `count` of `expected` (the dependencies copied when
    /// the applied ticket was `since`), retaining its registrar, when no evaluation was applied since and
    /// each is still listed; else returns false (and gives only some, or none).
    final func recordListed(
        _ expected: [(registrar: UnsafeMutableRawPointer, field: Int)],
        count: Int,
        since: UInt16,
        _ record: (Access) -> Void
    ) -> Bool {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        defer { lock.unlock() }
        guard !closed, appliedTicket == since else { return false }
        for read in expected[0..<count] {
            guard let index = dependencies.indices.first(where: { isDependency($0, read) }),
                let registrar = dependencies[index].retainedRegistrar()
            else { return false }
            // (Released with the read, after this lock, when the tracker is cleared.) The property's key
            // path and class, which tell a chain's links, are the ones its registrar was subscribed with.
            let listed = registrar.takeRetainedValue()
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

    /// Whether the dependency at `index` is the `@Observed` slot `read`. Under the striped lock.
    private func isDependency(_ index: Int, _ read: (registrar: UnsafeMutableRawPointer, field: Int)) -> Bool {
        guard dependencies[index].registrar.toOpaque() == read.registrar,
            case .field(let field) = dependencies[index].slot
        else { return false }
        return field == read.field
    }

    /// For an evaluation that read exactly the first `count` of `expected`, the dependencies copied when
    /// the applied ticket was `since`: applies its ticket, if it is newer, and runs `underLock` (told
    /// whether it was applied: see `prune`), unless an evaluation was applied since or the dependencies
    /// changed meanwhile; then returns false, and the caller records the reads (or evaluates again).
    final func applySameReads(
        _ expected: [(registrar: UnsafeMutableRawPointer, field: Int)],
        count: Int,
        since: UInt16,
        ticket: UInt16,
        underLock: (_ applied: Bool) -> Void
    ) -> Bool {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        defer { lock.unlock() }
        guard !closed else {
            underLock(false)
            return true
        }
        guard appliedTicket == since, dependencies.count == count else { return false }
        for index in dependencies.indices where !isDependency(index, expected[index]) { return false }
        let applied = Int16(bitPattern: ticket &- appliedTicket) > 0
        if applied { appliedTicket = ticket }
        underLock(applied)
        return true
    }
}

extension KVORegistrar {
    /// The key path and the class an `@Observed` slot was subscribed with (see `recordListed`).
    func subscribedFacts(field: Int) -> (wrapped: AnyKeyPath?, objectType: AnyObject.Type?) {
        withState { state in
            (state.entryIndex(for: .field(field)).flatMap { state.entry(at: $0).wrapped }, state.ownerType)
        }
    }
}
