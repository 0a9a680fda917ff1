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
    /// check, as they check a copy (`applySameReads`, `recordListed`). (Nor is it checked whether the
    /// registration is closed, ``RegistrationState/isClosed``: one cancelled meanwhile is found closed by
    /// those steps, and delivers nothing.)
    @inline(__always)
    func expect(dependenciesOf registration: SlotObserver) -> Bool {
        if let remembered, remembered.registration == ObjectIdentifier(registration),
            remembered.ticket == registration.appliedTicket
        {
            expectedCount = remembered.count
            expectedSince = remembered.ticket
            return true
        }
        remembered = nil
        // (Through locals: both are fields of one guarded value, which one call must not modify twice.)
        var reads = expected
        var since = expectedSince
        expected = []
        expectedCount = registration.copyFieldDependencies(into: &reads, since: &since)
        expected = reads
        expectedSince = since
        return expectedCount > 0
    }

    /// After `applySameReads` applied `ticket` for the registration at `registration`, whose dependencies
    /// are the first `expectedCount` of `expected`: remembers them for its next evaluation on this thread.
    func remember(appliedBy registration: ObjectIdentifier, ticket: UInt16) {
        remembered = (registration, ticket, expectedCount)
    }

    /// Ends matching: the reads matched so far are recorded (as reads of the dependencies they matched,
    /// which stay subscribed), unless the dependencies changed since they were copied; then matching is
    /// ``Matching/mustRecordAgain`` and the caller evaluates again. (Only while matching.)
    func stopExpecting() {
        guard let count = matching.matchedCount else { return }
        matching = .stopped
        guard count > 0, let registration else { return }
        // (The reads are collected apart and appended after: `expected` is read during the call, and
        // `accesses` is a field of the same guarded value.)
        var listed: [Access] = []
        let recorded = registration.with { info in
            info.recordListed(expected, count: count, since: expectedSince) { listed.append($0) }
        }
        for access in listed { accesses.append(access) }
        if !recorded { matching = .mustRecordAgain }
    }

    /// Whether the reads still match the reads expected (none was another).
    var isMatching: Bool { matching.matchedCount != nil }

    /// Whether the reads could not all be recorded (see `stopExpecting`): the caller evaluates again.
    var mustEvaluateAgain: Bool { matching == .mustRecordAgain }

    /// A read of `field` of `registrar`, compared with the reads expected.
    @inline(__always)
    func expectedRead(of registrar: KVORegistrar, field: Int) -> ExpectedRead {
        guard let matched = matching.matchedCount, expectedCount > 0 else { return .unexpected }
        let address = ObjectIdentifier(registrar)
        if matched < expectedCount, expected[matched].registrar == address, expected[matched].field == field {
            matching = .matched(matched &+ 1)
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
        expectedCount > 0 && matching == .matched(expectedCount) && accesses.isEmpty
    }
}
