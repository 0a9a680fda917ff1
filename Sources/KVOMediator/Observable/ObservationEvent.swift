/// What an `@Observed` property or a manual notification tells Swift's Observation: a read or one side
/// of a change.
///
/// An implementation detail of the bridge to Observation (see ``KeyValueObservable``): the library's
/// inlined accessors pass it to `_reportToObservation(_:of:keyPath:valueType:)`. Do not use it.
public enum _ObservationEvent: Sendable {
    /// A read: `ObservationRegistrar.access(_:keyPath:)`.
    case access
    /// Before a change: `ObservationRegistrar.willSet(_:keyPath:)`.
    case willSet
    /// After a change: `ObservationRegistrar.didSet(_:keyPath:)`.
    case didSet
}
