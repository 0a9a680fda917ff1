/// The registrations of one slot, in the order they were made (the order a change reaches them).
///
/// Registrations end in any order: newest first when a controller tears down, oldest first when the
/// rows of a list or the entries of a cache go in the order they came. Both ends cost O(1): the first
/// registration is kept inline (most slots have one, which then costs no array), the others in an
/// array whose front places are left empty by removals there (`head`) and reclaimed once they are
/// half of it. A removal in the middle moves the shorter side. Finding a registration looks from both
/// ends at once, so finding the oldest or the newest is one step.
struct SlotObservers: RandomAccessCollection {
    // Invariant: `first` is nil only when the list is empty; `rest` is nil or holds at least one
    // registration, in `rest[head...]`, every place of which is not nil; the places before `head` are nil.
    private var first: SlotObserver?
    private var rest: [SlotObserver?]?
    private var head = 0

    init() {}

    init(_ info: SlotObserver) {
        first = info
    }

    /// The list of `infos`, in their order.
    init(_ infos: [SlotObserver]) {
        for info in infos { append(info) }
    }

    var count: Int {
        guard first != nil else { return 0 }
        guard let rest else { return 1 }
        return 1 + rest.count - head
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }
    var isEmpty: Bool { first == nil }

    subscript(position: Int) -> SlotObserver {
        position == 0 ? first.unsafelyUnwrapped : rest.unsafelyUnwrapped[head + position - 1].unsafelyUnwrapped
    }

    /// The registration of a list of exactly one, unretained: valid while the list holds it.
    var unretainedOnly: Unretained<SlotObserver>? {
        guard rest == nil, let first else { return nil }
        return Unretained(first)
    }

    /// Calls `body` with each registration, in order, borrowed from the list (no iterator copies it).
    @inline(__always)
    func forEachObserver(_ body: (SlotObserver) throws -> Void) rethrows {
        guard let first else { return }
        try body(first)
        guard let rest else { return }
        for place in head..<rest.count { try body(rest[place].unsafelyUnwrapped) }
    }

    /// Calls `body` with each registration, in order, unretained: valid while the list holds them (a
    /// notification's copy of the list does), with no reference counting per registration.
    @inline(__always)
    func forEachUnretained(_ body: (Unretained<SlotObserver>) throws -> Void) rethrows {
        guard let first else { return }
        try body(Unretained(first))
        guard let rest else { return }
        for place in head..<rest.count { try body(Unretained(rest[place].unsafelyUnwrapped)) }
    }

    /// Whether every registration satisfies `predicate`, each given unretained (see `forEachUnretained`).
    @inline(__always)
    func allUnretained(_ predicate: (SlotObserver) -> Bool) -> Bool {
        guard let first else { return true }
        guard Unretained(first).with(predicate) else { return false }
        guard let rest else { return true }
        for place in head..<rest.count where !Unretained(rest[place].unsafelyUnwrapped).with(predicate) {
            return false
        }
        return true
    }

    mutating func append(_ info: SlotObserver) {
        if first == nil {
            first = info
        } else if rest == nil {
            var rest: [SlotObserver?] = []
            rest.reserveCapacity(3)
            rest.append(info)
            self.rest = rest
        } else {
            rest!.append(info)
        }
    }

    /// Removes `info`; false if it is not in the list.
    @discardableResult
    mutating func remove(_ info: SlotObserver) -> Bool {
        guard let position = position(of: info) else { return false }
        remove(at: position)
        return true
    }

    /// Where `info` is, looking from both ends at once.
    private func position(of info: SlotObserver) -> Int? {
        var low = 0
        var high = count - 1
        while low <= high {
            if self[low] === info { return low }
            if self[high] === info { return high }
            low += 1
            high -= 1
        }
        return nil
    }

    private mutating func remove(at position: Int) {
        guard rest != nil else {
            first = nil
            return
        }
        if position == 0 {
            first = rest![head]
            rest![head] = nil
            head += 1
        } else {
            let place = head + position - 1
            if place - head < rest!.count - 1 - place {
                // Nearer the front: move the ones before it up one place.
                var index = place
                while index > head {
                    rest![index] = rest![index - 1]
                    index -= 1
                }
                rest![head] = nil
                head += 1
            } else {
                rest!.remove(at: place)
            }
        }
        if head == rest!.count {
            rest = nil
            head = 0
        } else if head >= 16, head * 2 >= rest!.count {
            rest!.removeFirst(head)
            head = 0
        }
    }
}
