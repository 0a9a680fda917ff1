import Testing

@testable import KVOMediator

/// A typed key path observed with a literal is re-read through a closure compiled where the literal is
/// written (`_KeyPathReading`), not through the key-path runtime; a key path given as a value, or whose
/// values do not fit the room it is read into, is read through the runtime. Each must read the same
/// values. What a class declares affecting a key path is asked once per registration and once per
/// thread and property read, keyed by the object's own class.
@Suite struct CompiledReadingTests {
    final class Meter: KeyValueObservable, @unchecked Sendable {
        let kvoRegistrar = KVORegistrar()
        @Observed var low = 0
        @Observed var high = 0
        @Observed var child: Meter?
        var span: Int { high - low }
        /// 72 bytes: more than the 64 a compiled reading reads into.
        var wide: Wide { Wide(low: low, high: high) }
        /// Aligned to 16, as the room a compiled reading reads into is.
        var vector: SIMD4<Float> { SIMD4(Float(low), Float(high), 0, 1) }
        var childSpan: Int? { child?.span }
    }

    struct Wide: Equatable {
        var low: Int
        var high: Int
        var padding: (Int, Int, Int, Int) = (1, 2, 3, 4)
        var more: (Int, Int, Int) = (5, 6, 7)

        static func == (lhs: Wide, rhs: Wide) -> Bool {
            (lhs.low, lhs.high) == (rhs.low, rhs.high) && lhs.padding == rhs.padding && lhs.more == rhs.more
        }
    }

    @Test func aLiteralAndTheSameKeyPathGivenAsAValueDeliverTheSameRecords() {
        let meter = Meter()
        let observer = TestObserver()
        let literal = Recorder<Int>()
        let value = Recorder<Int>()
        let span = opaque(\Meter.span as KeyPath<Meter, Int>)
        observer.kvoController.observe(meter, keyPath: \.span, options: [.old, .new]) { _, _, change in
            literal.append(change)
        }
        let token = try? meter.observe(span, options: [.old, .new, .initial]) { _, change in value.append(change) }
        meter.high = 5
        meter.low = 2
        let expected = [change(\Meter.span, old: 0, new: 5), change(\Meter.span, old: 5, new: 3)]
        #expect(literal.changes == expected)
        #expect(value.changes.first?.newValue == 0)
        #expect(Array(value.changes.dropFirst()) == expected)
        withExtendedLifetime(token) {}
    }

    @Test func aValueTooWideForTheRoomIsReadAsBeforeAndAnAlignedOneThroughIt() {
        let meter = Meter()
        let observer = TestObserver()
        let wide = Recorder<Wide>()
        let vector = Recorder<SIMD4<Float>>()
        observer.kvoController.observe(meter, keyPath: \.wide, options: [.old, .new]) { _, _, change in
            wide.append(change)
        }
        observer.kvoController.observe(meter, keyPath: \.vector, options: [.old, .new]) { _, _, change in
            vector.append(change)
        }
        meter.high = 7
        #expect(wide.changes == [change(\Meter.wide, old: Wide(low: 0, high: 0), new: Wide(low: 0, high: 7))])
        #expect(vector.changes == [change(\Meter.vector, old: SIMD4(0, 0, 0, 1), new: SIMD4(0, 7, 0, 1))])
    }

    /// A chain through an optional link, compiled: replacing the link and changing its leaf both deliver.
    @Test func aCompiledChainFollowsItsLinks() {
        let meter = Meter()
        let first = Meter()
        let second = Meter()
        second.high = 9
        let observer = TestObserver()
        let records = Recorder<Int?>()
        observer.kvoController.observe(meter, keyPath: \.childSpan, options: [.old, .new]) { _, _, change in
            records.append(change)
        }
        meter.child = first
        first.high = 4
        meter.child = second
        first.high = 100  // no longer read
        meter.child = nil
        #expect(records.changes.map { $0.oldValue ?? nil } == [nil, 0, 4, 9])
        #expect(records.changes.map { $0.newValue ?? nil } == [0, 4, 9, nil])
    }
}

/// What a class declares is the class's own: a subclass that declares more for an inherited property
/// gets its declaration, whichever class's answer this thread asked first.
@Suite struct DeclarationsPerClassTests {
    class Gauge: KeyValueObservable, @unchecked Sendable {
        let kvoRegistrar = KVORegistrar()
        @Observed var level = 0
        var reading: Int { level }

        class func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
            []
        }
    }

    final class CalibratedGauge: Gauge, @unchecked Sendable {
        @Observed var offset = 0

        override class func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
            keyPath == \Gauge.level ? [\CalibratedGauge.offset] : []
        }
    }

    @Test(arguments: [false, true])
    func aSubclassDeclarationAppliesInsideAComputedProperty(plainGaugeFirst: Bool) {
        let gauge = Gauge()
        let calibrated = CalibratedGauge()
        let observer = TestObserver()
        let plain = Recorder<Int>()
        let adjusted = Recorder<Int>()
        func observePlain() {
            observer.kvoController.observe(gauge, keyPath: \.reading) { _, _, change in plain.append(change) }
            gauge.level = 1  // a re-evaluation that reads `level` of a `Gauge`
        }
        if plainGaugeFirst { observePlain() }
        observer.kvoController.observe(calibrated, keyPath: \.reading, options: [.new]) { _, _, change in
            adjusted.append(change)
        }
        if !plainGaugeFirst { observePlain() }
        calibrated.offset = 3  // declared by `level`, read by `reading`
        calibrated.level = 2
        calibrated.offset = 4  // still declared after a re-evaluation
        gauge.level = 5
        #expect(adjusted.changes.map(\.newValue) == [0, 2, 2])
        #expect(plain.changes.map(\.newValue) == [1, 5])
    }
}

/// Each `keyPathsAffectingValue(for:)` call, counted per key path; for one test only.
final class DeclarationCounter: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var a = 0
    @Observed var b = 0
    var total: Int { a + b }
    nonisolated(unsafe) static var asked: [AnyKeyPath: Int] = [:]

    static func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        asked[keyPath, default: 0] += 1
        return []
    }
}

@Suite struct DeclarationCachingTests {
    /// Asked when the registration is made, and for each property it reads the first time this thread
    /// reads it: not again for each change (with caches off, `KVO_MEDIATOR_CACHES=off`, at each evaluation).
    @Test func declarationsAreNotAskedAgainForEachChange() {
        let counter = DeclarationCounter()
        let observer = TestObserver()
        let totals = Recorder<Int>()
        observer.kvoController.observe(counter, keyPath: \.total) { _, _, change in totals.append(change) }
        for value in 1...10 {
            counter.a = value
            counter.b = value
        }
        #expect(totals.changes.count == 20)
        #expect(totals.changes.last?.newValue == 20)
        #expect(DeclarationCounter.asked[\DeclarationCounter.total] == 1)
        let asked = CacheSwitch.cachesAreOn ? 1 : 21
        #expect(DeclarationCounter.asked[\DeclarationCounter.a] == asked)
        #expect(DeclarationCounter.asked[\DeclarationCounter.b] == asked)
    }
}

/// `value`, passed through a call the optimiser does not see into: a key path given through it is not a
/// literal at the call that observes it.
@inline(never)
private func opaque<Value>(_ value: Value) -> Value {
    value
}
