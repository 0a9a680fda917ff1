import KVOMediator
import Testing

/// FBKVOController's callback styles: block, action and context, each told which key path fired.
@Suite struct ControllerCallbackStyleTests {
    static let optionSets: [KVOOptions] = [[], [.new], [.initial, .new, .old, .prior]]

    @Test(arguments: optionSets)
    func blockReceivesObserverObjectAndExactRecords(options: KVOOptions) {
        let circle = Circle(radius: 1)
        let observer = TestObserver(name: "block")
        let recorder = Recorder<Double>()
        let names = Recorder<String>()
        observer.kvoController.observe(circle, keyPath: \.radius, options: options) { observer, object, change in
            recorder.append(change)
            names.append(KVOChange(newValue: observer.name, keyPath: \Circle.radius))
            #expect(object === circle)
        }
        circle.radius = 2
        #expect(
            recorder.changes
                == OptionsTests.expectedRecords(\Circle.radius, options: options, initial: 1.0, values: [2.0])
        )
        #expect(names.changes.allSatisfy { $0.newValue == "block" })
    }

    @Test(arguments: optionSets)
    func actionIsCalledWithExactRecords(options: KVOOptions) {
        let circle = Circle(radius: 1)
        let observer = ActionObserver()
        observer.kvoController.observe(
            circle,
            keyPath: \.radius,
            options: options,
            action: ActionObserver.radiusDidChange
        )
        circle.radius = 2
        #expect(
            observer.radii.changes
                == OptionsTests.expectedRecords(\Circle.radius, options: options, initial: 1.0, values: [2.0])
        )
    }

    @Test(arguments: optionSets)
    func contextStylePassesTheContextThrough(options: KVOOptions) {
        let circle = Circle(radius: 1)
        let observer = ContextObserver()
        let context = UnsafeMutableRawPointer(bitPattern: 0xC0FFEE)
        observer.kvoController.observe(circle, keyPaths: [\.radius], options: options, context: context)
        circle.radius = 2
        let expected = OptionsTests.expectedRecords(\Circle.radius, options: options, initial: 1.0, values: [2.0])
        let deliveries = observer.deliveries
        #expect(deliveries.count == expected.count)
        for (delivery, record) in zip(deliveries, expected) {
            #expect(matches(delivery.change, record))
            #expect(delivery.keyPath == \Circle.radius)
            #expect(delivery.object == ObjectIdentifier(circle))
            #expect(delivery.context == context)
        }
    }

    @Test func multipleKeyPathsWithOneBlockTellWhichFired() {
        let circle = Circle()
        let observer = TestObserver()
        let records = Recorder<Any>()
        observer.kvoController.observe(circle, keyPaths: [\.radius, \.name], options: [.old, .new]) { _, _, change in
            records.append(change)
        }
        circle.radius = 3
        circle.name = "ring"
        let changes = records.changes
        #expect(changes.count == 2)
        #expect(matches(changes[0], change(\Circle.radius, old: 1.0, new: 3.0)))
        #expect(matches(changes[1], change(\Circle.name, old: "circle", new: "ring")))
    }

    /// A chain's value by `keyPaths:` is the key path's own, boxed: a `String?` for `\.owner?.name`,
    /// whether its leaf or a link changed (the setter's own value is a `String`).
    @Test func aChainByPartialKeyPathIsDeliveredAsItsKeyPathsValueWhicheverLinkChanged() {
        let account = Ledger()
        account.owner = LedgerOwner("ann")
        let observer = TestObserver()
        let records = Recorder<Any>()
        observer.kvoController.observe(account, keyPaths: [\.owner?.name], options: [.initial, .old, .new]) {
            _,
            _,
            change in
            records.append(change)
        }
        account.owner?.name = "bob"
        account.owner = LedgerOwner("cy")
        account.owner = nil
        let values = records.changes.flatMap { [$0.oldValue, $0.newValue] }.compactMap { $0 }
        #expect(values.count == 7)
        #expect(values.allSatisfy { type(of: $0) == String?.self })
        #expect(values.map { $0 as? String } == ["ann", "ann", "bob", "bob", "cy", "cy", nil])
    }

    @Test func multipleKeyPathsWithContextTellWhichFired() {
        let circle = Circle()
        let observer = ContextObserver()
        observer.kvoController.observe(circle, keyPaths: [\.radius, \.borderWidth], options: [.new], context: nil)
        circle.borderWidth = 4
        circle.radius = 6
        #expect(observer.deliveries.map(\.keyPath) == [\Circle.borderWidth, \Circle.radius])
        #expect(observer.deliveries.map { $0.change.newValue as? Int } == [4, nil])
        #expect(observer.deliveries.map { $0.change.newValue as? Double } == [nil, 6])
    }

    @Test func actionsOfOneObserverOnSeveralKeyPaths() {
        let circle = Circle()
        let observer = ActionObserver()
        observer.kvoController.observe(circle, keyPath: \.radius, action: ActionObserver.radiusDidChange)
        observer.kvoController.observe(
            circle,
            keyPath: \.name,
            options: [.old, .new],
            action: ActionObserver.nameDidChange
        )
        circle.name = "disc"
        circle.radius = 9
        #expect(observer.names.changes == [change(\Circle.name, old: "circle", new: "disc")])
        #expect(observer.radii.changes == [change(\Circle.radius, new: 9.0)])
    }
}
