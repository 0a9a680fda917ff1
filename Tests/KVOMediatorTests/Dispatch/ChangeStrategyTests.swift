import Testing

@testable import KVOMediator

/// Which way a set reaches a registration, from what the registration knows (`ChangeStrategy.choose`),
/// and the strategies real registrations get.
@Suite struct ChangeStrategyTests {
    let registrar = KVORegistrar()

    @Test func eachStrategyIsChosenFromWhatTheRegistrationKnows() {
        let set = LeafWord.slot(registrar, field: 16)
        let other = LeafWord.slot(registrar, field: 24)
        let noChain = LeafWord.noChain(shape: 7)
        func choose(_ isDirect: Bool, _ leaf: LeafWord, _ kind: SlotObserver.ReaderKind) -> ChangeStrategy {
            ChangeStrategy.choose(isDirect: isDirect, leaf: leaf, set: set, readerKind: kind)
        }
        // Direct wins whatever else is known.
        #expect(choose(true, .none, .flattening) == .direct)
        #expect(choose(true, other, .typed) == .direct)
        // The chain's leaf: the setter's values for a typed key path only (a string key path's value is
        // flattened, a partial key path's boxed as the chain's optional).
        #expect(choose(false, set, .typed) == .chainLeaf)
        #expect(choose(false, set, .partial) == .full)
        #expect(choose(false, set, .flattening) == .full)
        // Another slot of a chain: a link, followed for a typed key path only.
        #expect(choose(false, other, .typed) == .chainLink)
        #expect(choose(false, other, .partial) == .full)
        #expect(choose(false, other, .flattening) == .full)
        // No chain: a computed property's expected reads; nothing known: a full evaluation.
        #expect(choose(false, noChain, .typed) == .computed)
        #expect(choose(false, .none, .typed) == .full)
        // A slot with no key (an offset past 16 bits) is never taken for a leaf of no chain.
        #expect(ChangeStrategy.choose(isDirect: false, leaf: .none, set: .none, readerKind: .typed) == .full)
        #expect([ChangeStrategy.direct, .chainLeaf].allSatisfy { $0.takesSetterValues })
        #expect(![ChangeStrategy.chainLink, .computed, .full].contains { $0.takesSetterValues })
    }

    @Test func realRegistrationsGetTheStrategiesTheirKeyPathsCallFor() throws {
        let holder = StrategyHolder()
        let leaf = StrategyLeaf()
        holder.link = leaf
        let observer = TestObserver()
        observer.kvoController.observe(holder, keyPath: \.x) { _, _, _ in }
        observer.kvoController.observe(holder, keyPath: \.link?.value) { _, _, _ in }
        observer.kvoController.observe(holder, keyPath: \.sum) { _, _, _ in }
        holder.x = 1  // (The computed property's second evaluation finds it is no chain.)
        let infos = Array(observer.kvoController.state.withLock { $0.table.infos(of: ObjectIdentifier(holder)) })
        func strategy(
            of keyPath: AnyKeyPath,
            setting field: String,
            of object: some KeyValueObservable
        )
            -> ChangeStrategy?
        {
            guard let info = infos.first(where: { sameKeyPath($0.keyPath, keyPath) }),
                let offset = ObservedFields.field(named: field, in: type(of: object))?.offset
            else { return nil }
            return info.strategy(forField: offset, of: object.kvoRegistrar)
        }
        #expect(strategy(of: \StrategyHolder.x, setting: "x", of: holder) == .direct)
        #expect(strategy(of: \StrategyHolder.link?.value, setting: "value", of: leaf) == .chainLeaf)
        #expect(strategy(of: \StrategyHolder.link?.value, setting: "link", of: holder) == .chainLink)
        #expect(strategy(of: \StrategyHolder.sum, setting: "y", of: holder) == .computed)
    }
}

private final class StrategyHolder: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var x = 0
    @Observed var y = 0
    @Observed var link: StrategyLeaf?
    var sum: Int { x + y }
}

private final class StrategyLeaf: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var value = 0
}
