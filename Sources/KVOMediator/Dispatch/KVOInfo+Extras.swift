/// What few registrations need, kept out of the registration itself (``KVOInfo/extras``).
extension KVOInfo {
    /// What few registrations need, kept out of the registration itself.
    /// (A registration that keeps its last value has a `LastValue`, which is one.)
    class Extras {
        var stringKeyPath: String?
        var onObjectDeinit: (() -> Void)?
        /// The key path's reading compiled where it was written (see `_KeyPathReading`), for a registration
        /// that evaluates its key path; set in the registration's init.
        var reading: _KeyPathReading?
        /// Whether this is a `LastValue`.
        let keepsValue: Bool

        init(keepsValue: Bool = false) {
            self.keepsValue = keepsValue
        }
    }

    /// The string key path this registration was made with, if any (set before it starts).
    final var stringKeyPath: String? {
        get { extras?.stringKeyPath }
        set {
            guard let newValue else { return }
            extras(creating: true)?.stringKeyPath = newValue
        }
    }

    /// Called when the observed object deinitialises (set before it starts); released once idle.
    final var onObjectDeinit: (() -> Void)? {
        get { extras?.onObjectDeinit }
        set {
            guard let newValue else { return }
            extras(creating: true)?.onObjectDeinit = newValue
        }
    }

    func extras(creating: Bool) -> Extras? {
        if extras == nil, creating { extras = Extras() }
        return extras
    }
}
