import KVOMediator

/// Which of KVOMediator's callback styles delivered a change.
enum CallbackStyle: String, CaseIterable, Sendable {
    /// `observe(_:keyPath:options:block:)`: `{ observer, object, change in }`, on the changing thread.
    case block
    /// `observe(_:keyPath:options:action:)`: an unapplied method of the observer.
    case action
    /// `observe(_:keyPaths:options:block:)`: one block for several key paths.
    case keyPaths
    /// `observe(_:keyPath:options:block:)` with a `String` key path such as `"lastFinished.name"`.
    case stringKeyPath = "string path"
    /// `object.observe(_:options:changeHandler:)`: a `KVOObservation` token.
    case token
    /// `object.values(for:)`: a `KVOAsyncSequence` iterated by a task.
    case stream
    /// `observe(_:keyPath:options:delivery: .mainActor, block:)`: `{ observer, change in }` on the main actor.
    case mainActor = "main-actor"
}

/// One line of the dashboard's feed: an observation that fired, or a registration made or ended.
struct FeedEvent: Sendable {
    /// What happened.
    enum Kind: Sendable, Equatable {
        /// A callback of this style ran.
        case fired(CallbackStyle)
        /// The view model registered observations.
        case observed
        /// The view model ended observations.
        case unobserved
    }

    /// What the line says after the names.
    enum Detail: Sendable {
        /// A value was set: old and new, as text.
        case setting(old: String, new: String)
        /// Elements were inserted into, removed from or replaced in an observed array.
        case collection(KVOChangeKind, elements: String, indexes: String)
        /// The view model's registrations after an observe or unobserve: the controller's count.
        case registrations(controller: Int)
    }

    /// The order in which events were recorded, across both kinds.
    let sequence: Int
    let kind: Kind
    /// For a fired observation, `change.keyPathName`; for a registration, the key paths it covers.
    let keyPathName: String
    /// The observed object, by a name people recognise (`"manager"`, `"report.pdf"`).
    let subject: String
    let detail: Detail

    /// The line as the dashboard and the plain run show it: style, key path, object, old → new.
    func line(arrow: String) -> String {
        switch kind {
        case .fired(let style):
            return "\(style.rawValue.padded(to: 11)) \(keyPathName.padded(to: 18)) \(subject.padded(to: 11)) "
                + detailText(arrow: arrow)
        case .observed, .unobserved:
            let verb = kind == .observed ? "observe" : "unobserve"
            return
                "\(verb.padded(to: 9)) \(subject.padded(to: 11)) \(detailText(arrow: arrow).padded(to: 13)) \(keyPathName)"
        }
    }

    private func detailText(arrow: String) -> String {
        switch detail {
        case .setting(let old, let new):
            return "\(old) \(arrow) \(new)"
        case .collection(let kind, let elements, let indexes):
            let sign = kind == .insertion ? "+" : kind == .removal ? "-" : "~"
            return "\(sign)\(elements) at \(indexes)"
        case .registrations(let controller):
            return "controller \(controller)"
        }
    }
}
