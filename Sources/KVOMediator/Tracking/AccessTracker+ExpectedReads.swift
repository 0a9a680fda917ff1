/// A re-evaluation that reads what the last evaluation read, in the same order, records nothing.
///
/// Before it starts, the tracker copies the registration's dependencies (when each is an `@Observed`
/// slot). Each read is compared with the next one expected, by registrar address and field: a match is
/// counted, not recorded (no `Access` made, no reference retained, no subscription: the slot was listed
/// when the evaluation began), and a read of a slot matched already is a repeat. When every read matched
/// and the dependencies are still the ones copied, the registration applies the evaluation's ticket and
/// delivers (`KVOInfo.applySameReads`): nothing to prune. A read that was not expected (the key path now
/// reads something else, or fewer things) is recorded, and subscribed, as any read is, and the caller
/// evaluates the key path again in full, as before.
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
    func expect(dependenciesOf registration: KVOInfo) -> Bool {
        expectedCount = registration.copyFieldDependencies(into: &expected)
        return expectedCount > 0
    }

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
        matched = -1
        return .unexpected
    }

    /// Whether the evaluation read exactly the reads expected (and so recorded none).
    var readAllExpected: Bool {
        expectedCount > 0 && matched == expectedCount && accesses.isEmpty
    }
}

extension KVOInfo {
    /// Copies the dependencies into the first elements of `expected` (see `AccessTracker+ExpectedReads`)
    /// and returns how many there are, when each is an `@Observed` slot; else returns 0.
    final func copyFieldDependencies(
        into expected: inout [(registrar: UnsafeMutableRawPointer, field: Int)]
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
        return dependencies.count
    }

    /// For an evaluation that read exactly the first `count` of `expected`, the dependencies it began with: applies its ticket
    /// and runs `underLock` (told whether it was applied: see `prune`), unless the dependencies changed
    /// meanwhile; then returns false, and the caller evaluates again in full.
    final func applySameReads(
        _ expected: [(registrar: UnsafeMutableRawPointer, field: Int)],
        count: Int,
        ticket: UInt16,
        underLock: (_ applied: Bool) -> Void
    ) -> Bool {
        let lock = StripedLocks.lock(for: self)
        lock.lock()
        defer { lock.unlock() }
        guard !closed, Int16(bitPattern: ticket &- appliedTicket) > 0 else {
            underLock(false)
            return true
        }
        guard dependencies.count == count else { return false }
        for index in dependencies.indices {
            guard dependencies[index].registrar.toOpaque() == expected[index].registrar,
                case .field(let field) = dependencies[index].slot, field == expected[index].field
            else { return false }
        }
        appliedTicket = ticket
        underLock(true)
        return true
    }
}
