import Foundation
import KVOMediator
import Testing

/// FBKVOController's two-argument action selector: the action gets the change and the object, so an
/// observer of several objects tells which one changed.
@Suite struct ActionWithObjectTests {
    @Test func theActionGetsTheChangeAndTheObjectThatChanged() {
        let outline = DraftOutline()
        let left = Draft()
        let right = Draft()
        outline.kvoController.observe(
            left,
            keyPath: \.title,
            options: [.initial, .new],
            action: DraftOutline.titleDidChange
        )
        outline.kvoController.observe(right, keyPath: \.title, action: DraftOutline.titleDidChange)
        right.title = "Right"
        left.title = "Left"
        let records = outline.titles.values
        #expect(records.map(\.title) == ["", "Right", "Left"])
        #expect(records.map(\.draft) == [ObjectIdentifier(left), ObjectIdentifier(right), ObjectIdentifier(left)])
        #expect(outline.kvoController.observationCount == 2)
    }

    @Test func theActionIsNotCalledOnceTheObserverHasGone() {
        var outline: DraftOutline? = DraftOutline()
        let draft = Draft()
        let titles = outline!.titles
        let controller = outline!.kvoController
        controller.observe(draft, keyPath: \.title, action: DraftOutline.titleDidChange)
        draft.title = "1"
        weak let gone = outline
        outline = nil
        draft.title = "2"
        #expect(gone == nil)
        #expect(titles.values.map(\.title) == ["1"])
        withExtendedLifetime(controller) {}
    }
}
