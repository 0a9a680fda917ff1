import KVOMediator

/// A model that lives on the main actor, like most UI models.
@MainActor
final class Profile: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var name = "Ada"
    @Observed var followers = 0
}

/// A view model as a user writes it in Swift 6 mode: main-actor state updated from observations,
/// with no `nonisolated(unsafe)`, `@preconcurrency` or `@unchecked` anywhere.
@MainActor
final class ProfileViewModel {
    private(set) var title = ""
    private(set) var subtitle = ""
    private(set) var updates = 0
    lazy var kvoController = KVOController(observer: self)

    init(profile: Profile) {
        kvoController.observe(profile, keyPath: \.name, options: [.initial, .new], delivery: .mainActor) {
            viewModel,
            change in
            viewModel.title = change.newValue ?? ""
            viewModel.updates += 1
        }
        kvoController.observe(profile, keyPath: \.followers, options: [.initial, .new], delivery: .mainActor) {
            viewModel,
            change in
            viewModel.subtitle = "\(change.newValue ?? 0) followers"
        }
    }

    /// Observes a model that other threads change.
    func track(_ feed: Feed) {
        kvoController.observe(feed, keyPath: \.headline, options: [.new], delivery: .mainActor) {
            viewModel,
            change in
            viewModel.title = change.newValue ?? ""
            viewModel.updates += 1
        }
    }
}

/// A model changed on background threads. Sharing a mutable class across threads takes an
/// `@unchecked Sendable` in the model layer (each property here has one writer at a time); the view
/// model that observes it needs nothing of the kind.
final class Feed: KeyValueObservable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var headline = ""
}

/// A list's view model as a user writes it in Swift 6 mode: rows reloaded on the main actor from the
/// titles of an album's tracks, which other threads change.
@MainActor
final class TrackListViewModel {
    private(set) var titles: [String] = []
    private(set) var reloadedRows: [Int] = []
    lazy var kvoController = KVOController(observer: self)

    init(album: Album) {
        kvoController.observe(
            album,
            each: \.tracks,
            keyPath: \.title,
            options: [.initial, .new],
            delivery: .mainActor(coalescing: .latest)
        ) { viewModel, change in
            guard let new = change.newValue else { return }
            switch change.kind {
            case .setting where change.indexes == nil: viewModel.titles = new
            case .setting, .replacement:
                for (index, title) in zip(change.indexes ?? [], new) { viewModel.titles[index] = title }
                viewModel.reloadedRows += change.indexes ?? []
            case .insertion:
                for (index, title) in zip(change.indexes ?? [], new) { viewModel.titles.insert(title, at: index) }
            case .removal: break
            }
        }
    }
}
