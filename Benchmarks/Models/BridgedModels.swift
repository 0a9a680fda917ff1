import KVOMediator
import Observation

// KVOModels.swift's Counter bridged to Observation: a KeyValueObservable class that also conforms to
// `Observable`, so that `withObservationTracking`, `Observations` and SwiftUI track its `@Observed`
// properties as they track an `@Observable` class's.

final class BridgedCounter: KeyValueObservable, Observable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var x = 0
}
