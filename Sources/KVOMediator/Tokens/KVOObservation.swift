/// An observation that lives as long as this token: the `NSKeyValueObservation` shape.
///
/// ```swift
/// let token = try circle.observe(\.radius, options: [.new]) { circle, change in
///     print("radius:", change.newValue!)
/// }
/// token.invalidate()   // or just let the token go
/// ```
///
/// Dropping the token or calling ``invalidate()`` ends the registration; once `invalidate()` returns,
/// no callback starts (called from inside a callback, it does not wait for callbacks running on
/// other threads). `invalidate()` may be called any number of times, from any thread. The token does
/// not keep the observed object alive; when the object deinitialises the token becomes invalid.
public final class KVOObservation: Sendable {
    private let info: KVOInfo

    init(info: KVOInfo) {
        self.info = info
    }

    deinit {
        KVODispatcher.shared.end(info)
    }

    /// Ends the observation; calling it again does nothing.
    public func invalidate() {
        KVODispatcher.shared.end(info)
    }

    /// False once invalidated, or once the observed object has deinitialised.
    public var isValid: Bool {
        !info.isCancelled
    }

    /// Keeps this token in `bag`, so that it lives (and ends) with the bag.
    public func store(in bag: KVOObservationBag) {
        bag.insert(self)
    }
}
