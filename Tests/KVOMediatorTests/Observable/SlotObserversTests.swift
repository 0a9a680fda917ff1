import Testing

@testable import KVOMediator

/// A slot's registrations stay in the order they were made, whichever end they leave from.
@Suite struct SlotObserversTests {
    private static func observers(_ count: Int) -> [SlotObserver] {
        (0..<count).map { _ in SlotObserver(\String.count, kindBits: 0) }
    }

    private static func list(of observers: [SlotObserver]) -> SlotObservers {
        var list = SlotObservers()
        for observer in observers { list.append(observer) }
        return list
    }

    private static func same(_ list: SlotObservers, _ expected: [SlotObserver]) -> Bool {
        list.count == expected.count && zip(list, expected).allSatisfy { $0 === $1 }
    }

    @Test func removingTheOldestFirstKeepsTheRestInOrder() {
        let all = Self.observers(100)
        var list = Self.list(of: all)
        for removed in 0..<100 {
            let found = list.remove(all[removed])
            #expect(found)
            #expect(Self.same(list, Array(all[(removed + 1)...])))
        }
        #expect(list.isEmpty)
        #expect(list.unretainedOnly.map(\.object) == nil)
    }

    @Test func removingTheNewestFirstKeepsTheRestInOrder() {
        let all = Self.observers(100)
        var list = Self.list(of: all)
        for removed in (0..<100).reversed() {
            let found = list.remove(all[removed])
            #expect(found)
            #expect(Self.same(list, Array(all[..<removed])))
        }
        #expect(list.isEmpty)
    }

    @Test func removalsAnywhereAndAppendsBetweenThemMatchAnArray() {
        var generator = SplitMix64(state: 34)
        var expected: [SlotObserver] = []
        var list = SlotObservers()
        for _ in 0..<5_000 {
            if expected.isEmpty || generator.next() % 3 == 0 {
                let observer = SlotObserver(\String.count, kindBits: 0)
                expected.append(observer)
                list.append(observer)
            } else {
                let index = Int(generator.next() % UInt64(expected.count))
                let found = list.remove(expected.remove(at: index))
                #expect(found)
            }
            guard Self.same(list, expected) else {
                Issue.record("the list differs from the array after \(expected.count) registrations")
                return
            }
        }
    }

    @Test func aRegistrationNotInTheListIsNotRemoved() {
        let all = Self.observers(3)
        var list = Self.list(of: Array(all[..<2]))
        let found = list.remove(all[2])
        #expect(!found)
        #expect(Self.same(list, Array(all[..<2])))
    }

    @Test func onlyAListOfOneGivesItsRegistrationUnretained() {
        let all = Self.observers(2)
        var list = Self.list(of: all)
        #expect(list.unretainedOnly.map(\.object) == nil)
        list.remove(all[0])
        #expect(list.unretainedOnly?.object === all[1])
    }
}
