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

/// Values of each size and kind a transaction keeps before its first change: trivial ones of up to 32 bytes
/// as bytes, others boxed.
final class Measures: KeyValueObservable, @unchecked Sendable {  // changed by one thread at a time
    /// Two words, trivial.
    struct Span: Equatable {
        var low = 0
        var high = 0
    }

    /// Five words, trivial, too big to keep as bytes.
    struct Wide: Equatable {
        var a = 0, b = 0, c = 0, d = 0, e = 0
    }

    let kvoRegistrar = KVORegistrar()
    @Observed var rate = 0.0
    @Observed var flag = false
    @Observed var span = Span()
    @Observed var wide = Wide()
    @Observed var memo = ""
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
