import KVOMediator

/// Holds playlists, for chains that end at a collection: `\.playlist.songs`, `\.next?.songs`.
final class PlaylistShelf: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var playlist = Playlist()
    @Observed var next: Playlist?
}

/// Owns a shelf: a chain of three links that ends at a collection, `\.shelf.playlist.songs`.
final class PlaylistOwner: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var shelf = PlaylistShelf()
}

/// Whether untyped records (string key paths, `keyPaths:` forms) are exactly the typed ones expected,
/// in order: kind, old and new values, indexes, prior flag and key path (see `matches`).
func allMatch<Value: Equatable>(_ records: [KVOChange<Any>], _ expected: [KVOChange<Value>]) -> Bool {
    records.count == expected.count && zip(records, expected).allSatisfy { matches($0, $1) }
}
