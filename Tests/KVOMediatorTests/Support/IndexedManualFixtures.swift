import Foundation
import KVOMediator

/// An array and a set with custom storage, announced by hand with indexes and set mutations (Cocoa's
/// `willChange:valuesAtIndexes:forKey:` and `willChangeValueForKey:withSetMutation:usingObjects:`). It
/// keeps the misuse reported to it, and its storage is behind a lock, so two threads may announce on it.
final class TrackList: KeyValueObservable, @unchecked Sendable {  // the storage is guarded by `lock`
    let kvoRegistrar = KVORegistrar()
    /// A second array, announced by hand: another key path of the same object.
    @Observed(automaticallyNotifies: false) var extras: [String] = []
    /// What `handleKVOError(_:)` received.
    let errors = Recorded<KVOError>()
    private let lock = NSLock()
    private var storedTracks: [String]
    private var storedLabels: Set<String>

    init(tracks: [String] = [], labels: Set<String> = []) {
        storedTracks = tracks
        storedLabels = labels
    }

    /// Custom storage; assigning it is a setting, announced by hand.
    var tracks: [String] {
        get {
            accessValue(for: \.tracks)
            return lock.withLock { storedTracks }
        }
        set {
            willChangeValue(for: \.tracks)
            lock.withLock { storedTracks = newValue }
            didChangeValue(for: \.tracks)
        }
    }

    /// Custom storage for a set.
    var labels: Set<String> {
        get {
            accessValue(for: \.labels)
            return lock.withLock { storedLabels }
        }
        set {
            willChangeValue(for: \.labels)
            lock.withLock { storedLabels = newValue }
            didChangeValue(for: \.labels)
        }
    }

    /// Computed from the array: it gets settings.
    var trackCount: Int { tracks.count }

    /// `insertObjects:atIndexes:`, announced with its indexes.
    func insertTracks(_ new: [String], at indexes: IndexSet) {
        withChange(.insertion, at: indexes, of: \.tracks) {
            editSilently { tracks in
                for (track, index) in zip(new, indexes) { tracks.insert(track, at: index) }
            }
        }
    }

    /// `removeObjectsAtIndexes:`, announced with its indexes.
    func removeTracks(at indexes: IndexSet) {
        withChange(.removal, at: indexes, of: \.tracks) {
            editSilently { tracks in
                for index in indexes.reversed() { tracks.remove(at: index) }
            }
        }
    }

    /// `replaceObjectsAtIndexes:withObjects:`, announced with its indexes.
    func replaceTracks(at indexes: IndexSet, with new: [String]) {
        withChange(.replacement, at: indexes, of: \.tracks) {
            editSilently { tracks in
                for (track, index) in zip(new, indexes) { tracks[index] = track }
            }
        }
    }

    /// Applies a set mutation to the labels, announced with its objects.
    func mutateLabels(_ mutation: KVOSetMutation, using objects: Set<String>) {
        withChange(mutation, using: objects, of: \.labels) {
            editLabelsSilently { labels in Self.apply(mutation, objects, to: &labels) }
        }
    }

    /// Changes the array's storage without announcing anything.
    func editSilently(_ body: (inout [String]) -> Void) {
        lock.withLock { body(&storedTracks) }
    }

    /// Changes the set's storage without announcing anything.
    func editLabelsSilently(_ body: (inout Set<String>) -> Void) {
        lock.withLock { body(&storedLabels) }
    }

    func handleKVOError(_ error: KVOError) {
        errors.append(error)
    }

    /// What a set mutation does to a set.
    static func apply<Element>(_ mutation: KVOSetMutation, _ objects: Set<Element>, to set: inout Set<Element>) {
        switch mutation {
        case .union: set.formUnion(objects)
        case .minus: set.subtract(objects)
        case .intersect: set.formIntersection(objects)
        case .set: set = objects
        }
    }
}

/// Holds a manually announced playlist: chains and string key paths that end at an
/// `@Observed(automaticallyNotifies: false)` collection (`\.playlist.songs`, `"playlist.tags"`).
final class ManualPlaylistHolder: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var playlist = ManualPlaylist()
}

/// The fields of a record, without its key path: records of different objects compare by these.
struct RecordFields<Value: Equatable>: Equatable, CustomStringConvertible {
    let kind: KVOChangeKind
    let old: Value?
    let new: Value?
    let indexes: IndexSet?
    let isPrior: Bool

    init(_ change: KVOChange<Value>) {
        kind = change.kind
        old = change.oldValue
        new = change.newValue
        indexes = change.indexes
        isPrior = change.isPrior
    }

    var description: String {
        "(\(kind), old: \(old.map { "\($0)" } ?? "-"), new: \(new.map { "\($0)" } ?? "-"), "
            + "indexes: \(indexes.map { "\(Array($0))" } ?? "-")\(isPrior ? ", prior" : ""))"
    }
}
