import KVOMediator
import Testing

/// String key paths through the key paths a class names (`keyPath(forKey:)`): a subclass's override,
/// a computed property, and reads, sets and observations that agree with the typed forms.
@Suite struct NamedKeyPathTests {
    @Test func aStringKeyPathReadsASubclassOverrideAsTheTypedKeyPathDoes() throws {
        let gauge = OverridingGauge()
        #expect(gauge.value == 100)
        #expect(gauge[kvoKeyPath: "value"] as? Int == 100)
        #expect(try gauge.value(atKeyPath: "value", as: Int.self) == 100)
        try gauge.validateKeyPath("value")
    }

    @Test func aStringObservationOfAnOverrideFiresWithTheOverridesValues() throws {
        let gauge = OverridingGauge()
        let observer = TestObserver()
        let named = try recordChanges(of: gauge, "value", by: observer)
        let typed = recordChanges(of: gauge as NamedGauge, \.value, by: observer)
        gauge.value = 7
        gauge.other = 9
        let keyPath: AnyKeyPath = \OverridingGauge.[kvoKeyPath: "value"]
        #expect(allMatch(named.changes, [change(keyPath, old: 100, new: 7), change(keyPath, old: 7, new: 9)]))
        #expect(typed.changes.map(\.oldValue) == [100, 7])
        #expect(typed.changes.map(\.newValue) == [7, 9])
    }

    @Test func aSetByNameGoesThroughTheOverridesSetter() throws {
        let gauge = OverridingGauge()
        let records = Recorder<Int>()
        let token = try gauge.observe(\.other, options: [.old, .new]) { _, change in records.append(change) }
        try gauge.setValue(8, atKeyPath: "value")
        #expect(gauge.other == 8)
        #expect(gauge.value == 8)
        #expect(records.changes == [change(\OverridingGauge.other, old: 100, new: 8)])
        #expect(throws: KVOError.self) { try gauge.setValue("eight", atKeyPath: "value") }
        token.invalidate()
    }

    @Test func aComputedPropertyNamedByItsClassIsObservableByName() throws {
        let gauge = NamedGauge()
        let observer = TestObserver()
        let records = try recordChanges(of: gauge, "doubled", options: [.initial, .new], by: observer)
        gauge.reading = 6
        #expect(records.changes.map { $0.newValue as? Int } == [10, 12])
        let error = #expect(throws: KVOError.self) { try gauge.setValue(3, atKeyPath: "doubled") }
        #expect(error?.message.contains("read-only") == true)
        #expect(error?.message.contains("NamedGauge") == true)
    }

    @Test func aStringChainEndsAtANamedKeyPathOfWhateverObjectItReaches() throws {
        let panel = GaugePanel()
        let observer = TestObserver()
        let records = try recordChanges(of: panel, "gauge.value", options: [.new], by: observer)
        panel.gauge = OverridingGauge()
        panel.gauge?.value = 3
        panel.gauge = NamedGauge()
        #expect(records.changes.map { $0.newValue as? Int } == [100, 3, 0])
        #expect(panel[kvoKeyPath: "gauge.value"] as? Int == 0)
    }

    /// Without a named key path, a string reads the property's own storage, which an override does not
    /// use: the one way Swift allows (it cannot call a getter by name), the same in every run.
    @Test func withoutANamedKeyPathAStringReadsThePropertysStorage() {
        let gauge = UnnamedOverridingGauge()
        #expect(gauge.value == 100)
        #expect(gauge[kvoKeyPath: "value"] as? Int == 0)
    }

    @Test func aNamedKeyPathOfAnotherClassIsAnErrorThatSaysSo() {
        let gauge = MisnamingGauge()
        let observer = TestObserver()
        let error = #expect(throws: KVOError.self) {
            try observer.kvoController.observe(gauge, keyPath: "count") { _, _, _ in }
        }
        #expect(error?.reason == .unknownKey("count"))
        #expect(error?.typeName == "MisnamingGauge")
        #expect(
            error?.message
                == "KVOMediator: MisnamingGauge.keyPath(forKey: \"count\") names a key path of ChainedLabel, not of "
                + "MisnamingGauge (in key path \"count\" of MisnamingGauge). Return a key path that starts at "
                + "MisnamingGauge or a class it inherits from, such as \\MisnamingGauge.count, or nil."
        )
        #expect(observer.kvoController.observationCount == 0)
    }

    @Test func aNamedComputedPropertysDeclarationAppliesByName() throws {
        let report = NamedReport()
        let observer = TestObserver()
        let named = try recordChanges(of: report, "summary", by: observer)
        let typed = recordChanges(of: report, \.summary, by: observer)
        report.entries = 3
        #expect(named.changes.map { $0.oldValue as? String } == ["0 entries"])
        #expect(named.changes.map { $0.newValue as? String } == ["3 entries"])
        #expect(typed.changes == [change(\NamedReport.summary, old: "0 entries", new: "3 entries")])
    }

    @Test func aNamedGetterThatReadsByNameIsNotTakenForTheStorageItReads() throws {
        let report = NamedReport()
        let observer = TestObserver()
        let records = try recordChanges(of: report, "shout", options: [.new], by: observer)
        report.name = "hi"
        report.name = "there"
        #expect(records.changes.map { $0.newValue as? String } == ["HI", "THERE"])
    }
}
