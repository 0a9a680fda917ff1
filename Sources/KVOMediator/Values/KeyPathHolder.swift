/// An immutable reference to a key path: what ``KVOChange`` stores. Registrations are holders too.
@usableFromInline
class _KeyPathHolder: @unchecked Sendable {  // immutable
    @usableFromInline
    final let keyPath: AnyKeyPath

    @usableFromInline
    init(_ keyPath: AnyKeyPath) {
        self.keyPath = keyPath
    }

    /// The name the holder itself knows for its key path (a registration resolves it from what it
    /// read); nil: the key path's root type names it (`keyPathName`, beside ``KeyValueObservable``).
    var ownName: String? { nil }
}
