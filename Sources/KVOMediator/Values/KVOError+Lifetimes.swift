/// The errors of observations that end because what kept them went away too early: each names what was
/// observed, says why nothing more arrives, and says how to keep it (or how to end it on purpose).
extension KVOError {
    /// A controller released while its observer lives and `count` registrations remain (`first` names one).
    static func controllerReleased(
        observerType: Any.Type,
        count: Int,
        keyPath: String,
        type: String
    ) -> KVOError {
        let others = count > 1 ? " and \(count - 1) more" : ""
        return KVOError(
            reason: .controllerReleased,
            keyPath: keyPath,
            typeName: type,
            message: "KVOMediator: a KVOController<\(observerType)> was released while its observer is alive and it "
                + "still observed \(keyPath) of \(type)\(others), so those observations have ended. A controller "
                + "observes only while it lives: keep it in a stored property of the observer "
                + "(`lazy var kvoController = KVOController(observer: self)`), not in a local. To end its "
                + "observations on purpose, call unobserveAll() before letting it go."
        )
    }

    /// An `observe` ignored because its controller observes the key path of the object already, from an
    /// `observe` made elsewhere (`elementWise`: the same key path of the same collection's elements).
    static func alreadyObserved(
        keyPath: String,
        type: Any.Type,
        observerType: Any.Type,
        keptAt: String,
        ignoredAt: String,
        elementWise: Bool = false
    ) -> KVOError {
        let what = elementWise ? "that key path of the elements of that collection" : "that key path of that object"
        let keeps =
            elementWise ? "one observation per collection and key path" : "one registration per object and key path"
        let unobserve = elementWise ? "unobserve(_:each:keyPath:)" : "unobserve(_:keyPath:)"
        let token = "object.observe(\(elementWise ? "each:keyPath" : "_"):options:changeHandler:)"
        return KVOError(
            reason: .alreadyObserved,
            keyPath: keyPath,
            typeName: "\(type)",
            message:
                "KVOMediator: the observe of \(keyPath) of \(type) at \(ignoredAt) was ignored, with its options and "
                + "callback: this KVOController<\(observerType)> observes \(what) already (made at \(keptAt)), and a "
                + "controller keeps \(keeps). To replace it, call \(unobserve) first; to have both, observe from "
                + "another controller, or with a token (\(token))."
        )
    }

    /// A token released before it delivered any change, on the thread that made it.
    static func tokenReleased(keyPath: String, type: String) -> KVOError {
        KVOError(
            reason: .tokenReleased,
            keyPath: keyPath,
            typeName: type,
            message: "KVOMediator: the KVOObservation of \(keyPath) of \(type) was released before it delivered any "
                + "change, so that observation has ended. A token observes only while it is kept: if it was "
                + "discarded (`_ = try object.observe(…)`), store it in a property, or in a KVOObservationBag with "
                + "store(in:). To let a token go on purpose, call invalidate() first."
        )
    }
}
