/// What few registrations need, kept out of the registration itself (``KVOInfo/extrasReference``).
extension KVOInfo {
    /// What few registrations need, kept out of the registration itself. What the striped lock guards
    /// (the last value, a learnt name) is its ``GuardedFields`` value; the rest is set before the
    /// registration starts (or, `onObjectDeinit`, released once idle) and read with no lock.
    final class Extras: GuardedFields<Extras.Guarded>, @unchecked Sendable {  // see each field
        /// Under the striped lock.
        struct Guarded {
            /// The value a registration that keeps its last value keeps (``LastValue``).
            var lastValue = LastValue()
            /// The name this registration found itself (see `KVOInfo+Names`).
            var learntName: LearntName?
        }

        var stringKeyPath: String?
        var onObjectDeinit: (() -> Void)?
        /// The key path's reading compiled where it was written (see `_KeyPathReading`), for a registration
        /// that evaluates its key path; set in the registration's init.
        var reading: _KeyPathReading?
        /// For `.distinct`: whether a change changed nothing (see `_DistinctValues`).
        let sameValues: _SameValues?
        /// Whether the registration keeps its last value here (`lastValue`).
        let keepsValue: Bool

        init(keepsValue: Bool = false, sameValues: _SameValues? = nil) {
            self.keepsValue = keepsValue
            self.sameValues = sameValues
            super.init(guarded: Guarded())
        }

        /// The value kept, under the striped lock.
        var lastValue: LastValue {
            @inline(__always) _read { yield guarded.lastValue }
            @inline(__always) _modify { yield &guarded.lastValue }
        }
        /// The name learnt, under the striped lock.
        var learntName: LearntName? {
            @inline(__always) _read { yield guarded.learntName }
            @inline(__always) _modify { yield &guarded.learntName }
        }
    }

    /// The string key path this registration was made with, if any (set before it starts).
    final var stringKeyPath: String? {
        get { extrasReference.withInstance { $0.stringKeyPath } ?? nil }
        set {
            guard let newValue else { return }
            unretainedExtrasCreating().with { $0.stringKeyPath = newValue }
        }
    }

    /// Called when the observed object deinitialises (set before it starts); released once idle.
    final var onObjectDeinit: (() -> Void)? {
        get { extrasReference.withInstance { $0.onObjectDeinit } ?? nil }
        set {
            guard let newValue else { return }
            unretainedExtrasCreating().with { $0.onObjectDeinit = newValue }
        }
    }

    /// What few registrations need, if stored, unretained: the registration holds it until it
    /// deinitialises.
    @inline(__always)
    final var unretainedExtras: Unretained<Extras>? {
        extrasReference.withInstance { Unretained($0) }
    }

    /// The registration's `Extras`, stored now if none is, unretained (see `unretainedExtras`).
    func unretainedExtrasCreating() -> Unretained<Extras> {
        if let extras = unretainedExtras { return extras }
        return Unretained(extrasReference.storeIfNil(Extras()))
    }
}
