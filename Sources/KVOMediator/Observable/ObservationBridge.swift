import Observation

/// The part of a bridged object that Swift's Observation sees: its `ObservationRegistrar`, which
/// `withObservationTracking`, `Observations` and SwiftUI track, as an `@Observable` class's own.
///
/// A ``KVORegistrar`` makes one at the first read reported to Observation of an object whose class
/// conforms to both ``KeyValueObservable`` and `Observable`, and holds it for the object's lifetime.
/// When the object deinitialises it goes with the registrar, which ends Observation's tracking of the
/// object as an `@Observable` class's deinitialisation does.
@usableFromInline
final class ObservationBridge: Sendable {
    // (The table comes first: its offset is then a constant where code of another module inlines it.
    // Fields after `registrar`, whose size Observation does not publish, are located at run time.)

    /// The one key path object reported for each stored property, so that Observation's comparisons
    /// of key paths take their identity fast path.
    @usableFromInline
    let keyPaths = CanonicalKeyPaths()

    @usableFromInline
    let registrar = ObservationRegistrar()

    @usableFromInline
    init() {}

    /// Reports `event` of `object` at each key path of `reported`, whatever their root and value types,
    /// for the paths that know a key path only as `AnyKeyPath` (manual notifications, which name what
    /// they change by the slots it reads). `field` is an `@Observed` property's byte offset, -1 for other
    /// key paths; a key path given with an offset must be that property's getter's own (as tracking
    /// records it: its root is the declaring class), since it may become the one the property's reads
    /// and sets report. A key path whose root is not `Observable` is skipped: no read of it was reported.
    func report(_ event: ObservationEvent, of object: AnyObject, at reported: [(keyPath: AnyKeyPath, field: Int)]) {
        for (keyPath, field) in reported {
            let canonical = keyPaths.withCanonical(field: field, { keyPath }, { $0 })
            (canonical as? any ObservationReportingKeyPath)?.report(event, of: object, to: registrar)
        }
    }
}

/// A key path whose root is `Observable`: one that can be reported to an `ObservationRegistrar`.
private protocol ObservationReportingKeyPath {
    /// Reports `event` of `object` at this key path; nothing if `object` is not of the root type.
    func report(_ event: ObservationEvent, of object: AnyObject, to registrar: ObservationRegistrar)
}

extension KeyPath: ObservationReportingKeyPath where Root: Observable {
    fileprivate func report(_ event: ObservationEvent, of object: AnyObject, to registrar: ObservationRegistrar) {
        guard let subject = object as? Root else { return }
        switch event {
        case .access: registrar.access(subject, keyPath: self)
        case .willSet: registrar.willSet(subject, keyPath: self)
        case .didSet: registrar.didSet(subject, keyPath: self)
        }
    }
}
