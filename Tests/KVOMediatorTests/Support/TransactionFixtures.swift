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
    @Observed var tags: [String] = []

    init(_ name: String) {
        self.name = name
    }
}

/// An error a transaction's body throws.
struct TransactionAborted: Error {}

/// Trivial values of every size up to a word (the sizes a quiet set stores as bytes), each set from one
/// number, and one trivial property announced by hand.
final class TrivialValues: KeyValueObservable, @unchecked Sendable {  // changed by one thread at a time
    /// Three bytes, alignment 1.
    struct Triple: Equatable {
        var a: UInt8 = 0, b: UInt8 = 0, c: UInt8 = 0
    }

    /// Eight bytes, alignment 1.
    struct Octet: Equatable {
        var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0)

        static func == (lhs: Octet, rhs: Octet) -> Bool {
            withUnsafeBytes(of: lhs.bytes) { left in withUnsafeBytes(of: rhs.bytes) { left.elementsEqual($0) } }
        }
    }

    /// Nothing at all.
    struct Empty: Equatable {}

    enum Direction: Equatable {
        case north, east, south, west
    }

    let kvoRegistrar = KVORegistrar()
    @Observed var byte: Int8 = 0
    @Observed var half: Int16 = 0
    @Observed var triple = Triple()
    @Observed var single: Float = 0
    @Observed var word = 0
    @Observed var octet = Octet()
    @Observed var empty = Empty()
    @Observed var direction = Direction.north
    @Observed(automaticallyNotifies: false) var manual = 0

    /// Sets every property but `manual` from `n`, one after another, each `times` times in a row: the
    /// last from `n`, those before from `n + 1`, `n + 2`, … (In a transaction the third set of each is
    /// quiet: every registration of the property deferred its record at the first, and the second noted
    /// the property quiet.)
    func set(_ n: UInt8, times: Int = 1) {
        func repeated(_ set: (UInt8) -> Void) {
            for step in (0..<times).reversed() { set(n &+ UInt8(step)) }
        }
        repeated { byte = Int8(bitPattern: $0) }
        repeated { half = Int16($0) << 8 | Int16($0) }
        repeated { triple = Triple(a: $0, b: $0 &+ 1, c: $0 &+ 2) }
        repeated { single = Float($0) + 0.5 }
        repeated { word = Int($0) << 40 | Int($0) }
        repeated { octet = Octet(bytes: ($0, 1, 2, 3, 4, 5, 6, $0)) }
        repeated { _ in empty = Empty() }
        repeated { direction = [Direction.north, .east, .south, .west][Int($0) % 4] }
    }
}
