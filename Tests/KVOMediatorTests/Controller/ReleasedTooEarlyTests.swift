import Foundation
import KVOMediator
import Testing

/// A controller or a token that goes away too early ends its observations; debug builds say so (a
/// controller kept in a local stops after its `.initial` record, a discarded token delivers nothing),
/// and stay quiet for the ways of ending them on purpose.
@Suite struct ReleasedTooEarlyTests {
    @Test func aLocalControllerEndsItsObservationsAndDebugBuildsReportIt() throws {
        let holder = ControllerHolder()
        let draft = Draft()
        let titles = Recorded<String?>()
        do {
            let local = holder.makeController()
            local.observe(draft, keyPath: \.title, options: [.initial, .new]) { _, _, change in
                titles.append(change.newValue)
            }
            local.observe(draft, keyPath: \.text) { _, _, _ in }
        }
        draft.title = "unseen"
        #expect(titles.values == [""])
        #if DEBUG
        let error = try #require(holder.errors.values.only)
        #expect(error.reason == .controllerReleased)
        #expect(error.keyPath == "title")
        #expect(error.typeName == "Draft")
        #expect(
            error.message
                == "KVOMediator: a KVOController<ControllerHolder> was released while its observer is alive and it still "
                + "observed title of Draft and 1 more, so those observations have ended. A controller observes only "
                + "while it lives: keep it in a stored property of the observer "
                + "(`lazy var kvoController = KVOController(observer: self)`), not in a local. To end its observations "
                + "on purpose, call unobserveAll() before letting it go."
        )
        #else
        #expect(holder.errors.values.isEmpty)
        #endif
    }

    @Test func controllersEndedOnPurposeOrWithTheirObserverAreNotReported() {
        let draft = Draft()
        let holder = ControllerHolder()
        // Emptied first, then let go.
        holder.controller = holder.makeController()
        holder.controller?.observe(draft, keyPath: \.title) { _, _, _ in }
        holder.controller?.unobserveAll()
        holder.controller = nil
        // Observing nothing.
        holder.controller = holder.makeController()
        holder.controller = nil
        #expect(holder.errors.values.isEmpty)
        // Going with its observer, the usual way.
        var observer: TestObserver? = TestObserver()
        let reported = Recorded<KVOError>()
        observer!.kvoController.errorHandler = { reported.append($0) }
        observer!.kvoController.observe(draft, keyPath: \.title) { _, _, _ in }
        observer = nil
        draft.title = "after"
        #expect(reported.values.isEmpty)
    }

    @Test func aDiscardedTokenDeliversNothingAndDebugBuildsReportItToTheObject() throws {
        let draft = Draft()
        let titles = Recorded<String?>()
        _ = try draft.observe(\.title, options: [.initial, .new]) { _, change in titles.append(change.newValue) }
        draft.title = "unseen"
        #expect(titles.values == [""])
        #if DEBUG
        let error = try #require(draft.errors.values.only)
        #expect(error.reason == .tokenReleased)
        #expect(error.keyPath == "title")
        #expect(error.typeName == "Draft")
        #expect(
            error.message
                == "KVOMediator: the KVOObservation of title of Draft was released before it delivered any change, so "
                + "that observation has ended. A token observes only while it is kept: if it was discarded "
                + "(`_ = try object.observe(…)`), store it in a property, or in a KVOObservationBag with store(in:). "
                + "To let a token go on purpose, call invalidate() first."
        )
        #else
        #expect(draft.errors.values.isEmpty)
        #endif
    }

    @Test func tokensKeptOrEndedOnPurposeAreNotReported() throws {
        let draft = Draft()
        // Kept, delivering, then let go.
        var kept: KVOObservation? = try draft.observe(\.title) { _, _ in }
        draft.title = "seen"
        kept = nil
        #expect(draft.errors.values.isEmpty, "kept")
        // Invalidated, then let go.
        let invalidated = try draft.observe(\.title) { _, _ in }
        invalidated.invalidate()
        #expect(draft.errors.values.isEmpty, "invalidated")
        // Kept while other tokens were made, then let go before any change.
        var first: KVOObservation? = try draft.observe(\.title) { _, _ in }
        let second = try draft.observe(\.text) { _, _ in }
        first = nil
        #expect(draft.errors.values.isEmpty, "first")
        // In a bag, which ends its tokens itself.
        var bag: KVOObservationBag? = KVOObservationBag()
        try draft.observe(\.title) { _, _ in }.store(in: bag!)
        bag = nil
        // Ended by the object's death.
        var doomed: Draft? = Draft()
        var orphan: KVOObservation? = try doomed!.observe(\.title) { _, _ in }
        doomed = nil
        #expect(orphan?.isValid == false)  // (so its release reports nothing, wherever a report would go)
        orphan = nil
        #expect(draft.errors.values.isEmpty)
        withExtendedLifetime((kept, first, second, orphan)) {}
        second.invalidate()
    }
}
