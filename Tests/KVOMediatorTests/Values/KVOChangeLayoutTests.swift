import Testing

@testable import KVOMediator

/// A delivery lends its registration to the record it builds by writing the reference at the record's
/// address (`KVOChange._lending`): the holder must be the record's first stored property, whatever the
/// layout of its values.
@Suite struct KVOChangeLayoutTests {
    private struct Empty {}
    private struct Wide {
        var a = 0, b = 0, c = 0, d = 0, e = 0
    }
    private final class Reference {}

    private func holderOffset<Value>(_: Value.Type) -> Int? {
        MemoryLayout<KVOChange<Value>>.offset(of: \KVOChange<Value>._keyPathHolder)
    }

    @Test func theHolderIsTheFirstStoredPropertyForValuesOfEveryLayout() {
        #expect(holderOffset(Int.self) == 0)
        #expect(holderOffset(Bool.self) == 0)
        #expect(holderOffset(Double?.self) == 0)
        #expect(holderOffset(String.self) == 0)
        #expect(holderOffset(Any.self) == 0)
        #expect(holderOffset([Int].self) == 0)
        #expect(holderOffset(Set<String>.self) == 0)
        #expect(holderOffset(Empty.self) == 0)
        #expect(holderOffset(Wide.self) == 0)
        #expect(holderOffset(Reference.self) == 0)
        #expect(holderOffset(Reference?.self) == 0)
        #expect(holderOffset((Int8, Int64).self) == 0)
    }

    @Test func aRecordLentItsHolderHoldsNoneAgainAfterTheCall() {
        let holder = _KeyPathHolder(\Circle.radius)
        var record = KVOChange<Double>(settingFrom: 1, to: 2, isPrior: false, holder: nil)
        var seen: AnyKeyPath?
        KVOChange._lending(holder, to: &record) { seen = $0.keyPath }
        #expect(seen == \Circle.radius)
        #expect(record._keyPathHolder == nil)
    }
}
