import Foundation
import KVOMediator
import Testing

/// A change of a computed property's input made inside the callback of another change of its inputs:
/// each record's old value is the property's value just before that change, and asking for `.prior`
/// changes no old value.
@Suite struct NestedComputedOldValueTests {
    /// `x` becomes 1; a token on `x` then sets `y` to 10. A `\.sum` observer sees the nested change
    /// first (1 → 11: `x` was already 1), then the outer one (0 → 11).
    private func run(options: KVOOptions) throws -> [KVOChange<Int>] {
        let pair = NestedSum()
        let token = try pair.observe(\.x) { pair, change in
            if change.newValue == 1 { pair.y = 10 }
        }
        let observer = TestObserver()
        let recorder = recordChanges(of: pair, \.sum, options: options, by: observer)
        pair.x = 1
        token.invalidate()
        return recorder.changes
    }

    @Test func theNestedChangesOldValueIsTheValueJustBeforeIt() throws {
        let changes = try run(options: [.old, .new])
        #expect(changes.map(\.oldValue) == [1, 0])
        #expect(changes.map(\.newValue) == [11, 11])
        #expect(changes.map(\.isPrior) == [false, false])
    }

    @Test func priorRecordsChangeNoOldValue() throws {
        let changes = try run(options: [.old, .new, .prior])
        #expect(changes.map(\.isPrior) == [true, true, false, false])
        #expect(changes.map(\.oldValue) == [0, 1, 1, 0])
        #expect(changes.map(\.newValue) == [nil, nil, 11, 11])
    }

    @Test func afterTheNestedChangesTheNextChangeStartsFromTheLastValue() throws {
        let pair = NestedSum()
        let token = try pair.observe(\.x) { pair, change in
            if change.newValue == 1 { pair.y = 10 }
        }
        let observer = TestObserver()
        let recorder = recordChanges(of: pair, \.sum, options: [.old, .new], by: observer)
        pair.x = 1
        pair.y = 20
        pair.x = 5
        #expect(recorder.changes.map(\.oldValue) == [1, 0, 11, 21])
        #expect(recorder.changes.map(\.newValue) == [11, 11, 21, 25])
        token.invalidate()
    }

    /// `manual` becomes 1 between its `willChangeValue` and `didChangeValue`, and `y` is set in between:
    /// the `y` change's old value is the sum just before it (1), with or without `.prior`.
    @Test func aChangeBetweenAWillAndItsDidHasTheOldValueJustBeforeIt() {
        for options: KVOOptions in [[.old, .new], [.old, .new, .prior]] {
            let pair = NestedSum()
            let observer = TestObserver()
            let recorder = recordChanges(of: pair, \.manualSum, options: options, by: observer)
            pair.willChangeValue(for: \.manual)
            pair.manual = 1
            pair.y = 10
            pair.didChangeValue(for: \.manual)
            let changes = recorder.changes.filter { !$0.isPrior }
            #expect(changes.map(\.oldValue) == [1, 0], "options \(options)")
            #expect(changes.map(\.newValue) == [11, 11], "options \(options)")
        }
    }
}
