import KVOMediator
import Testing

/// Sets of trivial values of 0 to 8 bytes while a transaction has made them quiet, on this thread, on
/// another one meanwhile, and after it: each size is stored and delivered exactly, those of 1, 2, 4 and 8
/// bytes as words (`_setHintedTrivial`), the others through the generic setter.
@Suite struct TransactionTrivialValueTests {
    /// Records of each property of a `TrivialValues`, by one observer, which they keep.
    private struct Records {
        let observer = TestObserver()
        let byte: Recorder<Int8>
        let half: Recorder<Int16>
        let triple: Recorder<TrivialValues.Triple>
        let single: Recorder<Float>
        let word: Recorder<Int>
        let octet: Recorder<TrivialValues.Octet>
        let empty: Recorder<TrivialValues.Empty>
        let direction: Recorder<TrivialValues.Direction>
        let manual: Recorder<Int>

        init(of values: TrivialValues) {
            byte = recordChanges(of: values, \.byte, by: observer)
            half = recordChanges(of: values, \.half, by: observer)
            triple = recordChanges(of: values, \.triple, by: observer)
            single = recordChanges(of: values, \.single, by: observer)
            word = recordChanges(of: values, \.word, by: observer)
            octet = recordChanges(of: values, \.octet, by: observer)
            empty = recordChanges(of: values, \.empty, by: observer)
            direction = recordChanges(of: values, \.direction, by: observer)
            manual = recordChanges(of: values, \.manual, by: observer)
        }

        /// Expects each property's records to be one setting per pair of `steps`, from the values set from
        /// its first number to those set from its second (0: the initial values).
        func expect(_ steps: [(UInt8, UInt8)], sourceLocation: SourceLocation = #_sourceLocation) {
            func values(_ n: UInt8) -> TrivialValues {
                let values = TrivialValues()
                if n != 0 { values.set(n) }
                return values
            }
            func expected<Value>(_ keyPath: KeyPath<TrivialValues, Value>) -> [KVOChange<Value>] {
                steps.map { change(keyPath, old: values($0.0)[keyPath: keyPath], new: values($0.1)[keyPath: keyPath]) }
            }
            #expect(byte.changes == expected(\.byte), sourceLocation: sourceLocation)
            #expect(half.changes == expected(\.half), sourceLocation: sourceLocation)
            #expect(triple.changes == expected(\.triple), sourceLocation: sourceLocation)
            #expect(single.changes == expected(\.single), sourceLocation: sourceLocation)
            #expect(word.changes == expected(\.word), sourceLocation: sourceLocation)
            #expect(octet.changes == expected(\.octet), sourceLocation: sourceLocation)
            #expect(empty.changes == expected(\.empty), sourceLocation: sourceLocation)
            #expect(direction.changes == expected(\.direction), sourceLocation: sourceLocation)
            #expect(manual.changes.isEmpty, sourceLocation: sourceLocation)
        }
    }

    /// A `TrivialValues` with every property observed, and the records of its properties.
    private func observedValues() -> (TrivialValues, Records) {
        let values = TrivialValues()
        return (values, Records(of: values))
    }

    /// Runs a transaction that sets each property of `values` three times from 1, then three times from 2
    /// (the third set of each is quiet, only stored: see `TrivialValues.set(_:times:)`), then runs `body`
    /// in it.
    private func withQuietTransaction(_ values: TrivialValues, _ body: () -> Void = {}) {
        withKVOTransaction {
            values.set(1, times: 3)
            values.set(2, times: 3)
            body()
        }
    }

    @Test func eachSizeGoesFromItsValueBeforeTheTransactionToItsValueAtTheEnd() {
        let (values, records) = observedValues()
        withQuietTransaction(values)
        records.expect([(0, 2)])
        // (Each property's last value was stored by a quiet set.)
        #expect(values.byte == 2 && values.half == 0x0202 && values.single == 2.5 && values.word == 2 << 40 | 2)
        #expect(values.triple == TrivialValues.Triple(a: 2, b: 3, c: 4) && values.direction == .south)
        #expect(values.octet == TrivialValues.Octet(bytes: (2, 1, 2, 3, 4, 5, 6, 2)))
    }

    @Test func setsOnAnotherThreadWhileTheyAreQuietHereAreDeliveredAtOnceWithTheirValues() {
        let (values, records) = observedValues()
        withQuietTransaction(values) {
            TestThread { values.set(7) }.join()
            records.expect([(2, 7)])
            values.set(4)
        }
        records.expect([(2, 7), (0, 4)])
    }

    @Test func theFirstSetsAfterTheTransactionAreDeliveredWithTheirOldAndNewValues() {
        let (values, records) = observedValues()
        withQuietTransaction(values)
        values.set(5)
        values.set(6)
        records.expect([(0, 2), (2, 5), (5, 6)])
    }

    @Test func aPropertyAnnouncedByHandIsOnlyStoredWhateverTheTransactionMadeQuiet() {
        let (values, records) = observedValues()
        withQuietTransaction(values) { values.manual = 10 }
        values.manual = 11
        #expect(values.manual == 11)
        values.willChangeValue(for: \.manual)
        values.manual = 12
        values.didChangeValue(for: \.manual)
        #expect(records.manual.changes == [change(\TrivialValues.manual, old: 11, new: 12)])
    }
}
