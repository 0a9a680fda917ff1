import Testing

@testable import KVOMediator

/// `KeyPathComponents` reads key path objects' components as the runtime lays them out: a literal chain
/// is its properties' components; a computed property reading the same properties is not.
@Suite struct KeyPathComponentsTests {
    @Test func aLiteralChainIsTheChainOfItsProperties() {
        #expect(KeyPathComponents.isChain(\LabelHolder.label?.count, of: [\LabelHolder.label, \ChainedLabel.count]))
        #expect(KeyPathComponents.isChain(\LabelHolder.label?.text, of: [\LabelHolder.label, \ChainedLabel.text]))
        #expect(KeyPathComponents.isChain(\Person.address.city, of: [\Person.address, \Address.city]))
        #expect(KeyPathComponents.isChain(\LabelHolder.label, of: [\LabelHolder.label]))
    }

    @Test func aComputedPropertyReadingTheSamePropertiesIsNotTheirChain() {
        #expect(!KeyPathComponents.isChain(\LabelHolder.doubledCount, of: [\LabelHolder.label, \ChainedLabel.count]))
        #expect(!KeyPathComponents.isChain(\LabelHolder.upperText, of: [\LabelHolder.label, \ChainedLabel.text]))
        #expect(!KeyPathComponents.isChain(\LabelHolder.label?.count, of: [\LabelHolder.label, \ChainedLabel.text]))
        #expect(!KeyPathComponents.isChain(\LabelHolder.label?.count, of: [\LabelHolder.label]))
    }

    @Test func aSubscriptOrAStringKeyPathIsNoChainOfProperties() {
        let subscriptPath: AnyKeyPath = \LabelHolder.[kvoKeyPath: "label.count"]
        #expect(KeyPathComponents.properties(of: subscriptPath) == nil)
        #expect(!KeyPathComponents.isChain(subscriptPath, of: [\LabelHolder.label, \ChainedLabel.count]))
    }

    @Test func aKeyPathAppendedAtRunTimeHasTheLiteralChainsComponents() {
        let appended = (\Person.address).appending(path: \Address.city)
        #expect(KeyPathComponents.properties(of: appended)?.count == 2)
        #expect(KeyPathComponents.properties(of: appended) == KeyPathComponents.properties(of: \Person.address.city))
    }
}
