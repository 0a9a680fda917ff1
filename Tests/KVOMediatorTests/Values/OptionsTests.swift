import KVOMediator
import Testing

/// Every combination of `.new`, `.old`, `.initial` and `.prior` gives Cocoa's exact records.
@Suite struct OptionsTests {
    static let allCombinations = (0..<16).map { KVOOptions(rawValue: UInt($0)) }

    /// Cocoa's rules, spelled out: what a value `initial` then sets to each of `values` must deliver.
    static func expectedRecords<Value>(
        _ keyPath: AnyKeyPath,
        options: KVOOptions,
        initial: Value,
        values: [Value]
    ) -> [KVOChange<Value>] {
        var expected: [KVOChange<Value>] = []
        if options.contains(.initial) {
            expected.append(change(keyPath, new: options.contains(.new) ? initial : nil))
        }
        var old = initial
        for new in values {
            if options.contains(.prior) {
                expected.append(change(keyPath, old: options.contains(.old) ? old : nil, prior: true))
            }
            expected.append(
                change(keyPath, old: options.contains(.old) ? old : nil, new: options.contains(.new) ? new : nil)
            )
            old = new
        }
        return expected
    }

    @Test(arguments: allCombinations)
    func storedPropertyRecordsFollowCocoaRules(options: KVOOptions) {
        let circle = Circle(radius: 1)
        let observer = TestObserver()
        let recorder = Recorder<Double>()
        observer.kvoController.observe(circle, keyPath: \.radius, options: options) { _, _, change in
            recorder.append(change)
        }
        let afterObserve = recorder.count
        circle.radius = 2
        circle.radius = 3
        #expect(afterObserve == (options.contains(.initial) ? 1 : 0))
        #expect(
            recorder.changes
                == Self.expectedRecords(\Circle.radius, options: options, initial: 1.0, values: [2.0, 3.0])
        )
    }

    @Test(arguments: allCombinations)
    func computedPropertyRecordsFollowCocoaRules(options: KVOOptions) {
        let circle = Circle(radius: 1)
        let observer = TestObserver()
        let recorder = Recorder<Double>()
        observer.kvoController.observe(circle, keyPath: \.area, options: options) { _, _, change in
            recorder.append(change)
        }
        circle.radius = 2
        circle.radius = 3
        let expected = Self.expectedRecords(
            \Circle.area,
            options: options,
            initial: Double.pi,
            values: [4 * Double.pi, 9 * Double.pi]
        )
        #expect(recorder.changes == expected)
    }

    @Test(arguments: allCombinations)
    func manuallyAnnouncedPropertyRecordsFollowCocoaRules(options: KVOOptions) {
        let thermometer = Thermometer()
        let observer = TestObserver()
        let recorder = Recorder<Double>()
        observer.kvoController.observe(thermometer, keyPath: \.celsius, options: options) { _, _, change in
            recorder.append(change)
        }
        thermometer.celsius = 25
        thermometer.celsius = 30
        let expected = Self.expectedRecords(
            \Thermometer.celsius,
            options: options,
            initial: 20.0,
            values: [25.0, 30.0]
        )
        #expect(recorder.changes == expected)
    }

    @Test func allOptionsGiveInitialThenPriorAndChangePairs() {
        let circle = Circle(radius: 1)
        let observer = TestObserver()
        let recorder = Recorder<Double>()
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.initial, .new, .old, .prior]) {
            _,
            _,
            change in recorder.append(change)
        }
        circle.radius = 5
        #expect(
            recorder.changes == [
                change(\Circle.radius, new: 1.0),
                change(\Circle.radius, old: 1.0, prior: true),
                change(\Circle.radius, old: 1.0, new: 5.0),
            ]
        )
        #expect(recorder.changes.allSatisfy { $0.kind == .setting && $0.indexes == nil })
    }

    @Test func noOptionsStillTellThatSomethingChanged() {
        let circle = Circle()
        let observer = TestObserver()
        let recorder = Recorder<Double>()
        observer.kvoController.observe(circle, keyPath: \.radius, options: []) { _, _, change in
            recorder.append(change)
        }
        circle.radius = 7
        #expect(recorder.changes == [change(\Circle.radius)])
        #expect(recorder.changes.first?.oldValue == nil && recorder.changes.first?.newValue == nil)
    }

    @Test func initialIsDeliveredBeforeObserveReturns() {
        let circle = Circle(radius: 4)
        let observer = TestObserver()
        let recorder = Recorder<Double>()
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.initial, .new, .old]) { _, _, change in
            recorder.append(change)
        }
        #expect(recorder.changes == [change(\Circle.radius, new: 4.0)])
    }

    @Test func settingAnEqualValueIsStillAChange() {
        let circle = Circle(radius: 2)
        let observer = TestObserver()
        let recorder = Recorder<Double>()
        observer.kvoController.observe(circle, keyPath: \.radius, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        circle.radius = 2
        #expect(recorder.changes == [change(\Circle.radius, old: 2.0, new: 2.0)])
    }

    @Test func optionsDescribeThemselves() {
        #expect(KVOOptions([.new, .old]).description == "[.new, .old]")
        #expect(KVOOptions([]).description == "[]")
        #expect(KVOOptions.new.rawValue == 1 && KVOOptions.old.rawValue == 2)
        #expect(KVOOptions.initial.rawValue == 4 && KVOOptions.prior.rawValue == 8)
    }
}
