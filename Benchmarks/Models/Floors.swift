// The floors: what a set and a notification cost with no observation machinery at all.

/// A stored property.
final class PlainCounter {
    var x = 0
}

/// A stored property whose didSet calls one closure: the least any notification can cost.
final class DidSetCounter {
    var onChange: ((Int, Int) -> Void)?
    var x = 0 {
        didSet { onChange?(oldValue, x) }
    }
}

/// A stored array: what an append costs with no observation machinery.
final class PlainList {
    var items: [Int] = []
}
