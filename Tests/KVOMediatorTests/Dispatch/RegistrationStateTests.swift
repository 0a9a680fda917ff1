import Testing

@testable import KVOMediator

/// The transitions of a registration's dependencies (`RegistrationState`), apart from the lock and the
/// registrars they drive: what each lists, and what it tells the caller to drop and subscribe.
@Suite struct RegistrationStateTests {
    let root = KVORegistrar()
    let link = KVORegistrar()
    let other = KVORegistrar()

    private func read(_ registrar: KVORegistrar, _ field: Int) -> Access {
        Access(registrar: registrar, slot: .field(field))
    }

    /// The list, as (registrar, slot) pairs.
    private func listed(_ state: RegistrationState) -> [Listed] {
        state.dependencies.map { Listed(registrar: $0.registrarID, slot: $0.slot) }
    }

    private func pair(_ registrar: KVORegistrar, _ slot: SlotKey) -> Listed {
        Listed(registrar: ObjectIdentifier(registrar), slot: slot)
    }

    /// Applies `reads` as evaluation `ticket` after `applied`: what it dropped (as pairs) and subscribed (as
    /// indexes of `reads`; -1 for the root's lifetime).
    private func apply(
        _ state: inout RegistrationState,
        _ reads: [Access],
        ticket: UInt16,
        applied: UInt16
    ) -> Outcome {
        switch state.apply(reads: reads, ticket: ticket, applied: applied, root: Unretained(root)) {
        case .stale:
            return .stale
        case .same:
            return .same
        case .changed(let drop, let add):
            let subscribed = add.map { subscription -> Int in
                switch subscription {
                case .read(let index): index
                case .rootLifetime: -1
                }
            }
            return .changed(
                dropped: drop.map { Listed(registrar: $0.registrarID, slot: $0.slot) },
                subscribed: subscribed
            )
        }
    }

    @Test func aReadIsListedOnceAndNothingAfterTheEnd() {
        var state = RegistrationState()
        let firstRead = state.list(read(root, 8))
        let again = state.list(read(root, 8))
        let secondRead = state.list(read(link, 8))
        #expect(firstRead && !again && secondRead)
        #expect(listed(state) == [pair(root, .field(8)), pair(link, .field(8))])
        let taken = state.close()
        #expect(
            taken.map { Listed(registrar: $0.registrarID, slot: $0.slot) } == [
                pair(root, .field(8)), pair(link, .field(8)),
            ]
        )
        #expect(state.isClosed)
        #expect(listed(state) == [])
        let afterTheEnd = state.list(read(other, 16))
        #expect(!afterTheEnd)
        #expect(listed(state) == [])
    }

    @Test func anEvaluationThatReadTheSameMovesOnlyTheTicket() {
        var state = RegistrationState()
        let reads = [read(root, 8), read(link, 16)]
        for access in reads { _ = state.list(access) }
        let outcome = apply(&state, reads, ticket: 2, applied: 1)
        #expect(outcome == .same)
        #expect(listed(state) == [pair(root, .field(8)), pair(link, .field(16))])
    }

    @Test func anOlderEvaluationOrAClosedRegistrationChangesNothing() {
        var state = RegistrationState()
        _ = state.list(read(root, 8))
        let outcome = apply(&state, [read(other, 24)], ticket: 3, applied: 3)
        #expect(outcome == .stale)
        let outcome2 = apply(&state, [read(other, 24)], ticket: 2, applied: 3)
        #expect(outcome2 == .stale)
        #expect(listed(state) == [pair(root, .field(8))])
        _ = state.close()
        let outcome3 = apply(&state, [read(other, 24)], ticket: 4, applied: 3)
        #expect(outcome3 == .stale)
        #expect(listed(state) == [])
    }

    @Test func aChangedEvaluationDropsWhatItNoLongerReadAndSubscribesWhatItReadNew() {
        var state = RegistrationState()
        _ = state.list(read(root, 8))
        _ = state.list(read(link, 16))
        let outcome = apply(&state, [read(root, 8), read(other, 16)], ticket: 2, applied: 1)
        #expect(outcome == .changed(dropped: [pair(link, .field(16))], subscribed: [1]))
        #expect(listed(state) == [pair(root, .field(8)), pair(other, .field(16))])
    }

    @Test func theListTakesTheOrderOfTheReads() {
        // (A link put back in a chain: listed last as it happened, read first.)
        var state = RegistrationState()
        _ = state.list(read(root, 16))
        _ = state.list(read(root, 8))
        let outcome = apply(&state, [read(root, 8), read(root, 16)], ticket: 2, applied: 1)
        #expect(outcome == .changed(dropped: [], subscribed: []))
        #expect(listed(state) == [pair(root, .field(8)), pair(root, .field(16))])
    }

    @Test func aLifetimeDependencyOnTheRootIsKeptExactlyWhileNothingOfItIsRead() {
        var state = RegistrationState()
        _ = state.list(read(link, 8))
        let first = apply(&state, [read(link, 8)], ticket: 2, applied: 1)
        #expect(first == .changed(dropped: [], subscribed: [-1]))
        #expect(listed(state) == [pair(link, .field(8)), pair(root, .lifetime)])
        // Applied again with the same reads: listed already, nothing more.
        let outcome = apply(&state, [read(link, 8)], ticket: 3, applied: 2)
        #expect(outcome == .changed(dropped: [], subscribed: []))
        // Reading the root again: the lifetime dependency goes.
        let second = apply(&state, [read(root, 8), read(link, 8)], ticket: 4, applied: 3)
        #expect(second == .changed(dropped: [pair(root, .lifetime)], subscribed: [0]))
        #expect(listed(state) == [pair(root, .field(8)), pair(link, .field(8))])
    }

    @Test func ticketsAreComparedWithWrappingArithmetic() {
        #expect(RegistrationState.isNewer(1, than: 65_535))
        #expect(!RegistrationState.isNewer(65_535, than: 1))
        #expect(!RegistrationState.isNewer(7, than: 7))
        #expect(RegistrationState.isNewer(8, than: 7))
    }

    @Test func theExpectedReadsMatchOnlyTheListExactly() {
        var state = RegistrationState()
        _ = state.list(read(root, 8))
        _ = state.list(read(link, 16))
        let expected = [(registrar: ObjectIdentifier(root), field: 8), (registrar: ObjectIdentifier(link), field: 16)]
        let swapped = [expected[1], expected[0]]
        #expect(state.isExactly(count: 2) { expected[$0] })
        #expect(!state.isExactly(count: 1) { expected[$0] })
        #expect(!state.isExactly(count: 2) { swapped[$0] })
        _ = state.close()
        #expect(!state.isExactly(count: 2) { expected[$0] })
        #expect(!state.isExactly(count: 0) { expected[$0] })
    }

    @Test func aChainsTailIsReplacedAndADeadRegistrarForgotten() {
        var state = RegistrationState()
        _ = state.list(read(root, 8))
        _ = state.list(read(link, 16))
        _ = state.list(read(other, 24))
        state.relist(Dependency(registrar: Unretained(other), slot: .field(16)), at: 1)
        state.relist(Dependency(registrar: Unretained(link), slot: .field(32)), at: 2)
        #expect(listed(state) == [pair(root, .field(8)), pair(other, .field(16)), pair(link, .field(32))])
        state.relist(Dependency(registrar: Unretained(root), slot: .field(40)), at: 0)
        #expect(listed(state) == [pair(root, .field(40)), pair(other, .field(16)), pair(link, .field(32))])
        state.forget(registrar: ObjectIdentifier(other))
        #expect(listed(state) == [pair(root, .field(40)), pair(link, .field(32))])
    }
}

private struct Listed: Equatable {
    let registrar: ObjectIdentifier
    let slot: SlotKey
}

private enum Outcome: Equatable {
    case stale
    case same
    case changed(dropped: [Listed], subscribed: [Int])
}
