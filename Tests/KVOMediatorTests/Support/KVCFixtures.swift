import KVOMediator

/// Set and read by string key path (`KVCSetterTests`, `KVCReadTests`): an optional value, a number
/// that is not an `Int`, an optional link declared as a base class, and a property announced by hand.
///
/// `@unchecked Sendable` because thread tests hand it to other threads; they never write one
/// property from two threads at once.
final class Account: KeyValueObservable, @unchecked Sendable {  // one writer per property
    let kvoRegistrar = KVORegistrar()
    @Observed var email: String?
    @Observed var balance = 0.0
    @Observed var logins = 0
    @Observed var companion: Companion?
    @Observed(automaticallyNotifies: false) var revision = 0
}

/// A link declared as a base class, which a subclass instance may fill.
class Companion: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var name = "companion"
}

/// A subclass with a property of its own, reachable by name only while the link holds one.
final class GuideDog: Companion {
    @Observed var tricks = 0
}
