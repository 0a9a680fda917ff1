import FuzzSupport
import KVOMediator

/// What one string key path registration has been called with.
///
/// `@unchecked Sendable`: the blocks that fill it are `@Sendable`, but every change in this fuzz
/// target is made on the fuzzing thread, so the log is only ever touched there.
final class DeliveryLog: @unchecked Sendable {
    private(set) var count = 0
    /// The last record that was not a prior one.
    private(set) var lastChange: KVOChange<Any>?

    func record(_ change: KVOChange<Any>) {
        count += 1
        if change.isPrior {
            invariant(change.newValue == nil, "a prior record carries a new value")
        } else {
            lastChange = change
        }
    }
}
