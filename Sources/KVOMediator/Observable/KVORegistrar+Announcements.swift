import Foundation
import Synchronization

/// An old value captured before a change, boxed because registrations differ in value type.
enum CapturedValue {
    /// Nothing was captured: the registration did not ask for the old value.
    case none
    /// The value read before the change (or the one the registration kept: `LastValue`).
    case value(Any)
}

/// Announcing changes: one mechanism for sets, manual will/did pairs and collection mutations. Before
/// the change each registration is told (a direct one by the caller, from the change's own values;
/// the rest capture their old value and send their prior record); after it, each is told again.
extension KVORegistrar {
    /// Before a change: `direct` takes the registrations it can announce from the change's own
    /// values (returning true); the rest capture what they need. Returns what each captured (nil
    /// for those `direct` took), for ``announceAfter(to:captured:direct:)``.
    @inline(__always)
    func announceBefore(to infos: some Collection<SlotObserver>, direct: (SlotObserver) -> Bool) -> [CapturedValue?] {
        var captured: [CapturedValue?] = []
        captured.reserveCapacity(infos.count)
        for info in infos {
            captured.append(direct(info) ? nil : info.captureBeforeChange())
        }
        return captured
    }

    /// After a change: `direct` announces it to the registrations it took before; the rest re-read.
    @inline(__always)
    func announceAfter(
        to infos: some Collection<SlotObserver>,
        captured: [CapturedValue?],
        direct: (SlotObserver) -> Void
    ) {
        for (info, captured) in zip(infos, captured) {
            if let captured { info.changeEvaluated(captured: captured) } else { direct(info) }
        }
    }

    /// The reads of this object's slots that evaluating `keyPath` makes (its own slots, found by probing).
    func accesses<Object: KeyValueObservable, Value>(
        readBy keyPath: KeyPath<Object, Value>,
        on object: Object
    ) -> [Access] {
        ReadProbe.reads(of: keyPath, on: object).filter { $0.registrar === self }
    }

    /// The registrations on the slots `keyPath` reads; a key path that reads none of this object's
    /// slots is taken as a slot itself (custom storage announced before any read).
    private func infos<Object: KeyValueObservable, Value>(
        readBy keyPath: KeyPath<Object, Value>,
        on object: Object
    ) -> [SlotObserver] {
        infos(readBy: accesses(readBy: keyPath, on: object), keyPath: keyPath)
    }

    /// The registrations on the slots of `accesses`, the reads `keyPath` makes (see above).
    func infos(readBy accesses: [Access], keyPath: AnyKeyPath) -> [SlotObserver] {
        if accesses.isEmpty { return Array(infos(for: .keyPath(keyPath))) }
        var result: [SlotObserver] = []
        for access in accesses {
            for info in infos(for: access.slot) where !result.contains(where: { $0 === info }) {
                result.append(info)
            }
        }
        return result
    }

    /// Whether this thread's writes to this object are being announced by a collection mutation.
    var isSuppressedOnThisThread: Bool {
        ThreadModes.running.load(ordering: .relaxed) > 0
            && ThreadContext.currentIfPresent?.suppressedRegistrar == ObjectIdentifier(self)
    }

    /// Kept even when nobody is told (no observer, or a collection mutation announces the writes), so
    /// that a `didChangeValue(for:)` without its `willChangeValue(for:)` can be reported.
    func manualWillChange<Object: KeyValueObservable, Value>(of object: Object, keyPath: KeyPath<Object, Value>) {
        var infos: [SlotObserver] = []
        var captured: [CapturedValue?] = []
        if _hasObservers, !isSuppressedOnThisThread {
            infos = self.infos(readBy: keyPath, on: object)
            captured = announceBefore(to: infos) { _ in false }
        }
        ThreadContext.current.pendingManualChanges.append(
            ManualChange(registrar: self, keyPath: keyPath, infos: infos, captured: captured)
        )
    }

    func manualDidChange<Object: KeyValueObservable>(of object: Object, keyPath: AnyKeyPath) {
        guard let change = popManualChange(of: object, keyPath: keyPath, signature: nil) else { return }
        announceAfter(to: change.infos, captured: change.captured) { _ in }
    }
}
