import KVOMediator
import Testing

@testable import KVOMediator

/// Declared dependencies apply wherever the declaring property's read is seen, recursively, as Cocoa's
/// `keyPathsForValuesAffectingValueForKey:`: at the root, through a chain, inside a computed property.
/// The fixtures (`Support/DependencyFixtures.swift`) hide their reads behind warm caches, so only the
/// declarations can lead an observation to what they depend on.
@Suite struct DeclaredDependencyTests {
    // MARK: Transitively, at the root

    @Test("A declaration of a declaration counts: \\.twice (declares derived, which declares basic) is observable")
    func declarationsAreFollowedTransitively() {
        let report = LayeredReport()
        let observer = TestObserver()
        let errors = ErrorLog()
        observer.kvoController.errorHandler = { errors.append($0) }
        let recorder = Recorder<Int>()
        observer.kvoController.observe(report, keyPath: \.twice, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        #expect(errors.errors.isEmpty)
        #expect(observer.kvoController.observationCount == 1)
        report.setBasic(2)
        report.setBasic(3)
        #expect(
            recorder.changes == [
                change(\LayeredReport.twice, old: 20, new: 40),
                change(\LayeredReport.twice, old: 40, new: 60),
            ]
        )
    }

    @Test("A token of \\.twice does not throw, and its prior record carries the value before the change")
    func transitiveDeclarationsServeTokensAndPriorRecords() throws {
        let report = LayeredReport()
        let recorder = Recorder<Int>()
        let token = try report.observe(\.twice, options: [.old, .new, .prior]) { _, change in
            recorder.append(change)
        }
        report.setBasic(5)
        #expect(
            recorder.changes == [
                change(\LayeredReport.twice, old: 20, prior: true),
                change(\LayeredReport.twice, old: 20, new: 100),
            ]
        )
        token.invalidate()
    }

    // MARK: Through a chain

    @Test("A declaration applies through a chain: \\.child?.derived fires when child.basic changes")
    func declarationAppliesThroughAChain() {
        let parent = DependentParent()
        let observer = TestObserver()
        let recorder = Recorder<String?>()
        observer.kvoController.observe(parent, keyPath: \.child?.derived, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        parent.child?.setBasic(2)
        parent.child?.setBasic(3)
        let keyPath: AnyKeyPath = \DependentParent.child?.derived
        #expect(
            recorder.changes == [
                change(keyPath, old: "d1", new: "d2"),
                change(keyPath, old: "d2", new: "d3"),
            ]
        )
    }

    @Test("Replacing the chain's link moves the declared dependency to the new child")
    func replacingTheLinkMovesTheDeclaredDependency() {
        let first = DependentChild(basic: 1)
        let parent = DependentParent(child: first)
        let observer = TestObserver()
        let recorder = Recorder<String?>()
        observer.kvoController.observe(parent, keyPath: \.child?.derived, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        let second = DependentChild(basic: 5)
        parent.child = second
        first.setBasic(2)  // no longer in the chain
        second.setBasic(6)
        parent.child = nil
        second.setBasic(7)  // no longer in the chain
        let keyPath: AnyKeyPath = \DependentParent.child?.derived
        #expect(
            recorder.changes == [
                change(keyPath, old: "d1", new: "d5"),
                change(keyPath, old: "d5", new: "d6"),
                change(keyPath, old: "d6", new: .some(nil)),
            ]
        )
        #expect(first.kvoRegistrar.subscriptionCount == 0)
        #expect(second.kvoRegistrar.subscriptionCount == 0)
    }

    @Test("An @Observed property's declaration applies through a chain: \\.child?.status fires when detail changes")
    func observedPropertysDeclarationAppliesThroughAChain() {
        let parent = DependentParent()
        let observer = TestObserver()
        let recorder = Recorder<String?>()
        observer.kvoController.observe(parent, keyPath: \.child?.status, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        parent.child?.detail = 1
        parent.child?.status = "busy"
        let keyPath: AnyKeyPath = \DependentParent.child?.status
        #expect(
            recorder.changes == [
                change(keyPath, old: "idle", new: "idle"),
                change(keyPath, old: "idle", new: "busy"),
            ]
        )
    }

    // MARK: Inside computed properties

    @Test("A computed property reading a declaring property of its own object fires on the declared key path")
    func computedPropertyOfTheSameObjectFollowsTheDeclaration() {
        let child = DependentChild(basic: 1)
        let observer = TestObserver()
        let recorder = Recorder<String>()
        observer.kvoController.observe(child, keyPath: \.line, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        child.setBasic(2)
        #expect(recorder.changes == [change(\DependentChild.line, old: "[d1]", new: "[d2]")])
    }

    @Test("A computed property reading another object's declaring property fires on the declared key path")
    func computedPropertyOfAnotherObjectFollowsTheDeclaration() {
        let first = DependentChild(basic: 1)
        let parent = DependentParent(child: first)
        let observer = TestObserver()
        let recorder = Recorder<String>()
        observer.kvoController.observe(parent, keyPath: \.childLine, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        first.setBasic(2)
        let second = DependentChild(basic: 5)
        parent.child = second
        first.setBasic(3)  // no longer read
        second.setBasic(6)
        #expect(
            recorder.changes == [
                change(\DependentParent.childLine, old: "d1", new: "d2"),
                change(\DependentParent.childLine, old: "d2", new: "d5"),
                change(\DependentParent.childLine, old: "d5", new: "d6"),
            ]
        )
    }

    // MARK: Declared key paths that read nothing observable

    @Test("A declared key path of plain storage counts: its manual announcements fire the declaring key path")
    func declaredPlainStorageAnnouncedByHandFiresTheDeclaringKeyPath() {
        let basis = HandAnnouncedBasis()
        let observer = TestObserver()
        let errors = ErrorLog()
        observer.kvoController.errorHandler = { errors.append($0) }
        let recorder = Recorder<Int>()
        observer.kvoController.observe(basis, keyPath: \.derived, options: [.old, .new, .prior]) { _, _, change in
            recorder.append(change)
        }
        #expect(errors.errors.isEmpty)
        basis.setBasic(2)
        #expect(
            recorder.changes == [
                change(\HandAnnouncedBasis.derived, old: 10, prior: true),
                change(\HandAnnouncedBasis.derived, old: 10, new: 20),
            ]
        )
    }

    // MARK: Cycles and duplicates

    @Test("Cyclic declarations (a declares b, b declares a) neither hang nor crash, and each change fires once")
    func cyclicDeclarationsAreFollowedOnce() {
        let report = CyclicReport()
        let observer = TestObserver()
        let summaries = Recorder<String>()
        let values = Recorder<Int>()
        observer.kvoController.observe(report, keyPath: \.summary, options: [.old, .new]) { _, _, change in
            summaries.append(change)
        }
        observer.kvoController.observe(report, keyPath: \.a, options: [.old, .new]) { _, _, change in
            values.append(change)
        }
        report.setB(3)  // reached from summary only through a → b
        report.setA(4)
        #expect(
            summaries.changes == [
                change(\CyclicReport.summary, old: "1/2", new: "1/3"),
                change(\CyclicReport.summary, old: "1/3", new: "4/3"),
            ]
        )
        #expect(values.changes == [change(\CyclicReport.a, old: 1, new: 1), change(\CyclicReport.a, old: 1, new: 4)])
    }

    @Test("Cyclic declarations are followed through a chain too: \\.report?.summary fires once per change")
    func cyclicDeclarationsThroughAChain() {
        let holder = CyclicHolder()
        let observer = TestObserver()
        let recorder = Recorder<String?>()
        observer.kvoController.observe(holder, keyPath: \.report?.summary, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        holder.report?.setB(3)
        holder.report?.setA(4)
        let keyPath: AnyKeyPath = \CyclicHolder.report?.summary
        #expect(recorder.changes == [change(keyPath, old: "1/2", new: "1/3"), change(keyPath, old: "1/3", new: "4/3")])
    }

    @Test("A property reached through two declared paths fires one record per registration")
    func twoDeclaredPathsToOnePropertyFireOnce() throws {
        let report = DiamondReport()
        let observer = TestObserver()
        let totals = Recorder<Int>()
        let lefts = Recorder<Int>()
        observer.kvoController.observe(report, keyPath: \.total, options: [.old, .new]) { _, _, change in
            totals.append(change)
        }
        observer.kvoController.observe(report, keyPath: \.left, options: [.old, .new]) { _, _, change in
            lefts.append(change)
        }
        let tokenTotals = Recorder<Int>()
        let token = try report.observe(\.total, options: [.new]) { _, change in tokenTotals.append(change) }
        report.setBasic(2)
        #expect(totals.changes == [change(\DiamondReport.total, old: 110, new: 220)])
        #expect(lefts.changes == [change(\DiamondReport.left, old: 10, new: 20)])
        #expect(tokenTotals.changes == [change(\DiamondReport.total, new: 220)])
        token.invalidate()
    }

    // MARK: String key paths

    @Test("A string key path honours the declaration of a property whose key path its class names, at the root")
    func stringKeyPathHonoursTheDeclarationAtTheRoot() throws {
        let child = DependentChild()
        let observer = TestObserver()
        let records = Recorder<Any>()
        try observer.kvoController.observe(child, keyPath: "status", options: [.old, .new]) { _, _, change in
            records.append(change)
        }
        child.detail = 1
        child.status = "busy"
        let keyPath: AnyKeyPath = \DependentChild.[kvoKeyPath: "status"]
        #expect(
            allMatch(
                records.changes,
                [change(keyPath, old: "idle", new: "idle"), change(keyPath, old: "idle", new: "busy")]
            )
        )
    }

    @Test("A string chain honours the declaration of the named property it ends at")
    func stringChainHonoursTheDeclaration() throws {
        let parent = DependentParent()
        let observer = TestObserver()
        let records = Recorder<Any>()
        try observer.kvoController.observe(parent, keyPath: "child.status", options: [.old, .new]) { _, _, change in
            records.append(change)
        }
        let first = parent.child!
        first.detail = 1
        let second = DependentChild()
        second.status = "busy"
        parent.child = second
        first.detail = 2  // no longer in the chain
        second.detail = 3
        let keyPath: AnyKeyPath = \DependentParent.[kvoKeyPath: "child.status"]
        #expect(
            allMatch(
                records.changes,
                [
                    change(keyPath, old: "idle", new: "idle"),
                    change(keyPath, old: "idle", new: "busy"),
                    change(keyPath, old: "busy", new: "busy"),
                ]
            )
        )
    }

    @Test("The typed root form of an @Observed property's declaration keeps working (for contrast)")
    func typedRootDeclarationOfAnObservedProperty() {
        let child = DependentChild()
        let observer = TestObserver()
        let recorder = Recorder<String>()
        observer.kvoController.observe(child, keyPath: \.status, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        child.detail = 1
        #expect(recorder.changes == [change(\DependentChild.status, old: "idle", new: "idle")])
    }
}
