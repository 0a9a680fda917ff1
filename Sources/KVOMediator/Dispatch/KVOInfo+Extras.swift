/// What few registrations need, kept out of the registration itself (``KVOInfo/extras``).
extension KVOInfo {
    /// What few registrations need, kept out of the registration itself. Every field is in `guarded`
    /// (a subclass's own fields would be found through its generic base's metadata on each access).
    final class Extras: GuardedFields<Extras.Fields> {
        struct Fields {
            var stringKeyPath: String?
            var onObjectDeinit: (() -> Void)?
            /// The key path's reading compiled where it was written (see `_KeyPathReading`), for a
            /// registration that evaluates its key path; set in the registration's init.
            var reading: _KeyPathReading?
            /// Whether the registration keeps its last value here (`lastValue`).
            let keepsValue: Bool
            /// The value kept, under the striped lock.
            var lastValue = LastValue()
        }

        init(keepsValue: Bool = false) {
            super.init(guarded: Fields(keepsValue: keepsValue))
        }

        var stringKeyPath: String? {
            @inline(__always) _read { yield guarded.stringKeyPath }
            @inline(__always) _modify { yield &guarded.stringKeyPath }
        }
        var onObjectDeinit: (() -> Void)? {
            @inline(__always) _read { yield guarded.onObjectDeinit }
            @inline(__always) _modify { yield &guarded.onObjectDeinit }
        }
        var reading: _KeyPathReading? {
            @inline(__always) _read { yield guarded.reading }
            @inline(__always) _modify { yield &guarded.reading }
        }
        var keepsValue: Bool {
            @inline(__always) get { guarded.keepsValue }
        }
        var lastValue: LastValue {
            @inline(__always) _read { yield guarded.lastValue }
            @inline(__always) _modify { yield &guarded.lastValue }
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
