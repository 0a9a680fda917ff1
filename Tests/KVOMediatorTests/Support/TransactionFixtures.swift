import KVOMediator

/// The account (a ledger here): an invariant (`available`) over two properties that a transaction changes together.
final class Ledger: KeyValueObservable, @unchecked Sendable {  // changed by one thread at a time
    let kvoRegistrar = KVORegistrar()
    @Observed var balance = 0
    @Observed var pending = 0
    @Observed var history: [Int] = []
    @Observed var owner: LedgerOwner? = nil

    /// What can be spent: never negative while `pending <= balance` holds before and after each change.
    var available: Int { balance - pending }
}

/// The owner an account links to, for chains.
final class LedgerOwner: KeyValueObservable, @unchecked Sendable {  // changed by one thread at a time
    let kvoRegistrar = KVORegistrar()
    @Observed var name: String

    init(_ name: String) {
        self.name = name
    }
}

/// An error a transaction's body throws.
struct TransactionAborted: Error {}
