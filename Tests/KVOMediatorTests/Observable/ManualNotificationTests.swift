import KVOMediator
import Testing

/// Custom storage and `@Observed(automaticallyNotifies: false)` are announced by hand.
@Suite struct ManualNotificationTests {
    @Test func customStorageIsObservableThroughAccessValue() {
        let thermometer = Thermometer()
        let observer = TestObserver()
        let recorder = Recorder<Double>()
        observer.kvoController.observe(thermometer, keyPath: \.celsius, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        thermometer.celsius = 30
        #expect(recorder.changes == [change(\Thermometer.celsius, old: 20.0, new: 30.0)])
    }

    @Test func storageChangedWithoutAnnouncementDoesNotNotify() {
        let thermometer = Thermometer()
        let observer = TestObserver()
        let recorder = Recorder<Double>()
        observer.kvoController.observe(thermometer, keyPath: \.celsius) { _, _, change in recorder.append(change) }
        thermometer.setSilently(99)
        #expect(recorder.count == 0)
        thermometer.celsius = 100
        #expect(recorder.changes == [change(\Thermometer.celsius, new: 100.0)])
    }

    @Test func disabledAutomaticNotificationBatchesChangesIntoOneRecord() {
        let counter = Counter()
        let observer = TestObserver()
        let recorder = Recorder<Int>()
        observer.kvoController.observe(counter, keyPath: \.count, options: [.old, .new, .prior]) { _, _, change in
            recorder.append(change)
        }
        counter.count = 10  // not announced: automatic notification is off
        #expect(recorder.count == 0)
        counter.incrementTwice()
        #expect(
            recorder.changes == [
                change(\Counter.count, old: 10, prior: true),
                change(\Counter.count, old: 10, new: 12),
            ]
        )
    }

    @Test func withChangeWrapsAMutation() {
        let counter = Counter()
        let observer = TestObserver()
        let recorder = Recorder<Int>()
        observer.kvoController.observe(counter, keyPath: \.count, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        let result = counter.withChange(of: \.count) {
            counter.count = 5
            return "done"
        }
        #expect(result == "done")
        #expect(recorder.changes == [change(\Counter.count, old: 0, new: 5)])
    }

    @Test func nestedManualAnnouncementsPairByKeyPath() {
        let counter = Counter()
        let thermometer = Thermometer()
        let observer = TestObserver()
        let counts = Recorder<Int>()
        let temperatures = Recorder<Double>()
        observer.kvoController.observe(counter, keyPath: \.count, options: [.old, .new]) { _, _, change in
            counts.append(change)
        }
        observer.kvoController.observe(thermometer, keyPath: \.celsius, options: [.old, .new]) { _, _, change in
            temperatures.append(change)
        }
        counter.willChangeValue(for: \.count)
        thermometer.celsius = 1
        counter.count = 3
        counter.didChangeValue(for: \.count)
        #expect(counts.changes == [change(\Counter.count, old: 0, new: 3)])
        #expect(temperatures.changes == [change(\Thermometer.celsius, old: 20.0, new: 1.0)])
    }

    @Test func unmatchedDidChangeDoesNothing() {
        let counter = Counter()
        let observer = TestObserver()
        let recorder = Recorder<Int>()
        observer.kvoController.observe(counter, keyPath: \.count) { _, _, change in recorder.append(change) }
        counter.didChangeValue(for: \.count)
        #expect(recorder.count == 0)
    }

    @Test func manualAnnouncementWithNoObserverIsANoOp() {
        let counter = Counter()
        counter.willChangeValue(for: \.count)
        counter.count = 1
        counter.didChangeValue(for: \.count)
        #expect(counter.count == 1)
    }
}
