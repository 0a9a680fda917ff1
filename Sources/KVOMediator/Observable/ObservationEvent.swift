/// What an `@Observed` property or a manual notification tells Swift's Observation: a read or one side
/// of a change.
///
/// For the reports that name what they change by key paths known only as `AnyKeyPath` (see
/// `ObservationBridge.report(_:of:at:)`).
enum ObservationEvent {
    /// A read: `ObservationRegistrar.access(_:keyPath:)`.
    case access
    /// Before a change: `ObservationRegistrar.willSet(_:keyPath:)`.
    case willSet
    /// After a change: `ObservationRegistrar.didSet(_:keyPath:)`.
    case didSet
}
