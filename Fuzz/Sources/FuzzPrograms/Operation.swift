import FuzzSupport
import KVOMediator

/// One step of a program, decoded from the input's next bytes (an opcode, then its operands).
enum Operation {
    /// The callback styles of an observe through a controller.
    enum Form: Int {
        case typedBlock, typedAction, string, keyPathsBlock, keyPathsContext, stringThenTyped
    }

    /// Something a callback does the next time one runs.
    enum ArmedAction {
        case releaseController(Int)
        case releaseWatcher(Int)
        case releaseToken(Int)
        case invalidateToken(Int)
        case unobserveAll(Int)
        case unobserveItself
        case setValue(root: Int, Int)
        case invalidateBag
    }

    /// A change made through an array proxy (`mutableArrayValue(for:)`) or by assigning the array.
    enum ArrayChange: Int {
        case append, insert, remove, replace, removeAll, removeLast, assign
        case appendContents, insertContents, removeFirst, removeIndexes, replaceIndexes
    }

    /// A change made through a set proxy (`mutableSetValue(for:)`) or by assigning the set.
    enum SetChange: Int {
        case insert, remove, removeAll, assign, formUnion, subtract, formIntersection
    }

    /// What is done with the program's one `KVOObservationBag`.
    enum BagChange: Int {
        case store, invalidateAll, release
    }

    /// Announcing by hand: will/did pairs, nested, unmatched, and silent stores.
    enum ManualChange: Int {
        case manualAnnounced, manualSilently, valueAnnounced, valueSetInside, unmatchedDidChange
        case withChange, nestedManual
    }

    case newRoot(Int)
    case releaseRoot(Int)
    case newWatcher(Int)
    case releaseWatcher(Int)
    case newController(Int, retainsObserved: Bool)
    case releaseController(Int)
    case observe(controller: Int, root: Int, form: Form, ObservedPath, ObservedPath, KVOOptions)
    case observeToken(token: Int, root: Int, ObservedPath, KVOOptions)
    case unobserveTyped(controller: Int, root: Int, ObservedPath)
    case unobserveString(controller: Int, root: Int, ObservedPath)
    case unobserveObject(controller: Int, root: Int)
    case unobserveAll(controller: Int)
    case invalidateToken(Int)
    case releaseToken(Int)
    case setValue(root: Int, Int)
    case setMiddle(root: Int, choice: Int)
    case setMiddleValue(root: Int, Int)
    case setLeaf(root: Int, present: Bool)
    case setLeafValue(root: Int, Int)
    case changeArray(root: Int, ArrayChange, Int, Int)
    case changeSet(root: Int, SetChange, Int)
    case announce(root: Int, ManualChange, Int)
    case arm(ArmedAction)
    case bag(BagChange, token: Int)

    static let roots = 3
    static let observers = 2
    static let tokens = 3

    /// Decodes the next operation; any bytes make some operation.
    init(_ input: inout ByteReader) {
        let opcode = input.int(below: 25)
        let root = input.int(below: Self.roots)
        let slot = input.int(below: Self.observers)
        func path() -> ObservedPath { ObservedPath(rawValue: input.int(below: ObservedPath.allCases.count))! }
        func options() -> KVOOptions { KVOOptions(rawValue: UInt(input.byte() & 0x0F)) }
        func value() -> Int { Int(input.byte()) }
        switch opcode {
        case 0: self = .newRoot(root)
        case 1: self = .releaseRoot(root)
        case 2: self = .newWatcher(slot)
        case 3: self = .releaseWatcher(slot)
        case 4: self = .newController(slot, retainsObserved: input.int(below: 2) == 1)
        case 5: self = .releaseController(slot)
        case 6, 7, 8:
            let form = Form(rawValue: input.int(below: 6))!
            self = .observe(controller: slot, root: root, form: form, path(), path(), options())
        case 9: self = .observeToken(token: input.int(below: Self.tokens), root: root, path(), options())
        case 10: self = .unobserveTyped(controller: slot, root: root, path())
        case 11: self = .unobserveString(controller: slot, root: root, path())
        case 12: self = .unobserveObject(controller: slot, root: root)
        case 13: self = .unobserveAll(controller: slot)
        case 14: self = .invalidateToken(input.int(below: Self.tokens))
        case 15: self = .releaseToken(input.int(below: Self.tokens))
        case 16: self = .setValue(root: root, value())
        case 17: self = .setMiddle(root: root, choice: input.int(below: 3))
        case 18: self = .setMiddleValue(root: root, value())
        case 19: self = .setLeaf(root: root, present: input.int(below: 2) == 1)
        case 20: self = .setLeafValue(root: root, value())
        case 21: self = .changeArray(root: root, ArrayChange(rawValue: input.int(below: 12))!, value(), value())
        case 22:
            if input.int(below: 2) == 0 {
                self = .changeSet(root: root, SetChange(rawValue: input.int(below: 7))!, value())
            } else {
                self = .announce(root: root, ManualChange(rawValue: input.int(below: 7))!, value())
            }
        case 23: self = .arm(Self.armedAction(&input, root: root, slot: slot))
        default: self = .bag(BagChange(rawValue: input.int(below: 3))!, token: input.int(below: Self.tokens))
        }
    }

    private static func armedAction(_ input: inout ByteReader, root: Int, slot: Int) -> ArmedAction {
        switch input.int(below: 8) {
        case 0: .releaseController(slot)
        case 1: .releaseWatcher(slot)
        case 2: .releaseToken(input.int(below: tokens))
        case 3: .invalidateToken(input.int(below: tokens))
        case 4: .unobserveAll(slot)
        case 5: .unobserveItself
        case 6: .setValue(root: root, Int(input.byte()))
        default: .invalidateBag
        }
    }
}
