import Testing

@testable import KVOMediator

/// The four things a registration's leaf word holds are told apart whatever their bits.
@Suite struct LeafWordTests {
    @Test func eachKindIsToldApartFromTheOthers() {
        let registrar = KVORegistrar()
        let slot = LeafWord.slot(registrar, field: 24)
        #expect(slot.isSlot && !slot.isNoChain && !slot.isNone && slot.directField == nil)
        #expect(slot == LeafWord.slot(registrar, field: 24))
        #expect(slot != LeafWord.slot(registrar, field: 32))
        for shape: UInt in [0, 1, 0xFFFF, .max, 0x1234_5678_9ABC_DEF0] {
            let noChain = LeafWord.noChain(shape: shape)
            #expect(noChain.isNoChain && !noChain.isSlot && !noChain.isNone)
            #expect(noChain != slot)
        }
        let direct = LeafWord.directField(40)
        #expect(direct.directField == 40 && !direct.isNone)
        #expect(LeafWord.none.isNone && !LeafWord.none.isSlot && LeafWord.none.directField == nil)
    }

    @Test func aFieldBeyondSixteenBitsIsNoSlot() {
        let registrar = KVORegistrar()
        #expect(LeafWord.slot(registrar, field: 0x1_0000).isNone)
        #expect(LeafWord.slot(registrar, field: 0xFFFF).isSlot)
    }
}
