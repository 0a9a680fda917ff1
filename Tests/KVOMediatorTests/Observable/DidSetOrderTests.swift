import Foundation
import KVOMediator
import Testing

/// Where `didSet` runs: an `@Observed` property announces its change from the wrapper's setter, which
/// Swift runs before the property's own `didSet`, so an observer of the property reads state that
/// `didSet` derives as it was before. A computed property of the same state is read up to date, and is
/// observable itself. (The `Observed` documentation and the common-mistakes article say so.)
@Suite struct DidSetOrderTests {
    @Test func anObserverOfThePropertyRunsBeforeItsDidSet() {
        let draft = Draft()
        let observer = TestObserver()
        let seen = Recorded<(stored: Int, computed: Int)>()
        observer.kvoController.observe(draft, keyPath: \.text) { _, draft, _ in
            seen.append((draft.storedWordCount, draft.wordCount))
        }
        draft.text = "two words"
        #expect(seen.values.map(\.stored) == [0])  // not yet: didSet runs after the observers
        #expect(seen.values.map(\.computed) == [2])
        #expect(draft.storedWordCount == 2)
    }

    @Test func aComputedPropertyIsObservedUpToDateWithOldAndNewValues() {
        let draft = Draft()
        let observer = TestObserver()
        let recorder = recordChanges(of: draft, \.wordCount, by: observer)
        draft.text = "one"
        draft.text = "now three words"
        #expect(recorder.changes.map(\.oldValue) == [0, 1])
        #expect(recorder.changes.map(\.newValue) == [1, 3])
    }
}
