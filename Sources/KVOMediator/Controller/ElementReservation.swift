import Synchronization

/// The identity of one `ElementObservationEntry`, from the start of its `observe`, and whether it was
/// ended: its callbacks check that before calling the observer's block, which covers the time before
/// `observe` has a token to end.
@usableFromInline
final class ElementReservation: Sendable {
    private let ended = Atomic<Bool>(false)

    @usableFromInline
    init() {}

    @usableFromInline
    var hasEnded: Bool { ended.load(ordering: .acquiring) }

    func end() {
        ended.store(true, ordering: .releasing)
    }
}
