import KVOMediator

// Declared dependencies (`keyPathsAffectingValue(for:)`, Cocoa's keyPathsForValuesAffectingValueForKey:).
// The computed properties here sit behind caches: once warm, reading them reads nothing observable, so
// only their declarations, followed recursively, lead an observation to what they depend on. Each
// setter empties the caches between the store and the announcement, so that a read before it (for
// `.old` or `.prior`) sees the old values and a read after it the new ones.

/// `twice` declares `derived`, which declares `basic`: a declaration of a declaration.
final class LayeredReport: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    /// Announced by ``setBasic(_:)``.
    @Observed(automaticallyNotifies: false) var basic = 1
    private var derivedCache: Int?
    private var twiceCache: Int?

    /// `basic * 10`, cached.
    var derived: Int {
        if let derivedCache { return derivedCache }
        let made = basic * 10
        derivedCache = made
        return made
    }

    /// `derived * 2`, cached.
    var twice: Int {
        if let twiceCache { return twiceCache }
        let made = derived * 2
        twiceCache = made
        return made
    }

    /// Warm from the start.
    init() {
        _ = twice
    }

    func setBasic(_ value: Int) {
        withChange(of: \.basic) {
            basic = value
            derivedCache = nil
            twiceCache = nil
        }
    }

    static func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        if keyPath == \LayeredReport.twice { return [\LayeredReport.derived] }
        if keyPath == \LayeredReport.derived { return [\LayeredReport.basic] }
        return []
    }
}

/// A child whose `derived` is cached custom storage that reports its reads with `accessValue(for:)`
/// and declares `basic`; its `@Observed` `status` declares `detail`.
final class DependentChild: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    /// Announced by ``setBasic(_:)``.
    @Observed(automaticallyNotifies: false) var basic = 1
    @Observed var status = "idle"
    @Observed var detail = 0
    private var derivedCache: String?

    /// `"d\(basic)"`, cached; the getter reports its read.
    var derived: String {
        accessValue(for: \.derived)
        if let derivedCache { return derivedCache }
        let made = "d\(basic)"
        derivedCache = made
        return made
    }

    /// A computed property of the same object that reads the declaring one.
    var line: String { "[\(derived)]" }

    /// Warm from the start.
    init(basic: Int = 1) {
        self.basic = basic
        _ = derived
    }

    func setBasic(_ value: Int) {
        withChange(of: \.basic) {
            basic = value
            derivedCache = nil
        }
    }

    static func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        if keyPath == \DependentChild.derived { return [\DependentChild.basic] }
        if keyPath == \DependentChild.status { return [\DependentChild.detail] }
        return []
    }

    /// `status` by name is its key path, so that string key paths find its declaration.
    static func keyPath(forKey key: String) -> AnyKeyPath? {
        key == "status" ? \DependentChild.status : nil
    }
}

/// Reaches a `DependentChild` through a link: `\.child?.derived`, and a computed `childLine`.
final class DependentParent: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var child: DependentChild?

    /// A computed property of another object that reads the child's declaring property.
    var childLine: String { child?.derived ?? "" }

    init(child: DependentChild? = DependentChild()) {
        self.child = child
    }
}

/// `derived` declares `basic`, a plain stored property announced by hand: neither getter reads
/// anything observable, so only the declaration ties `derived` to the announcements of `basic`.
final class HandAnnouncedBasis: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    private(set) var basic = 1
    var derived: Int { basic * 10 }

    func setBasic(_ value: Int) {
        willChangeValue(for: \.basic)
        basic = value
        didChangeValue(for: \.basic)
    }

    static func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        keyPath == \HandAnnouncedBasis.derived ? [\HandAnnouncedBasis.basic] : []
    }
}

/// `a` declares `b` and `b` declares `a`, a cycle; the cached `summary` declares `a` only, so it
/// reaches `b` through the cycle.
final class CyclicReport: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    /// Announced by ``setA(_:)``.
    @Observed(automaticallyNotifies: false) var a = 1
    /// Announced by ``setB(_:)``.
    @Observed(automaticallyNotifies: false) var b = 2
    private var summaryCache: String?

    /// `"\(a)/\(b)"`, cached; the getter reports its read.
    var summary: String {
        accessValue(for: \.summary)
        if let summaryCache { return summaryCache }
        let made = "\(a)/\(b)"
        summaryCache = made
        return made
    }

    /// Warm from the start.
    init() {
        _ = summary
    }

    func setA(_ value: Int) {
        withChange(of: \.a) {
            a = value
            summaryCache = nil
        }
    }

    func setB(_ value: Int) {
        withChange(of: \.b) {
            b = value
            summaryCache = nil
        }
    }

    static func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        if keyPath == \CyclicReport.summary { return [\CyclicReport.a] }
        if keyPath == \CyclicReport.a { return [\CyclicReport.b] }
        if keyPath == \CyclicReport.b { return [\CyclicReport.a] }
        return []
    }
}

/// Reaches a `CyclicReport` through a link: `\.report?.summary`.
final class CyclicHolder: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var report: CyclicReport? = CyclicReport()
}

/// `total` declares `left` and `right`, and each of them declares `basic`: two declared paths to one
/// property. All three are cached.
final class DiamondReport: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    /// Announced by ``setBasic(_:)``.
    @Observed(automaticallyNotifies: false) var basic = 1
    private var leftCache: Int?
    private var rightCache: Int?
    private var totalCache: Int?

    /// `basic * 10`, cached.
    var left: Int {
        if let leftCache { return leftCache }
        let made = basic * 10
        leftCache = made
        return made
    }

    /// `basic * 100`, cached.
    var right: Int {
        if let rightCache { return rightCache }
        let made = basic * 100
        rightCache = made
        return made
    }

    /// `left + right`, cached.
    var total: Int {
        if let totalCache { return totalCache }
        let made = left + right
        totalCache = made
        return made
    }

    /// Warm from the start.
    init() {
        _ = total
    }

    func setBasic(_ value: Int) {
        withChange(of: \.basic) {
            basic = value
            (leftCache, rightCache, totalCache) = (nil, nil, nil)
        }
    }

    static func keyPathsAffectingValue(for keyPath: AnyKeyPath) -> [AnyKeyPath] {
        if keyPath == \DiamondReport.total { return [\DiamondReport.left, \DiamondReport.right] }
        if keyPath == \DiamondReport.left || keyPath == \DiamondReport.right { return [\DiamondReport.basic] }
        return []
    }
}

/// Two inputs and their sum, for changes nested in the callbacks of other changes.
final class NestedSum: KeyValueObservable, @unchecked Sendable {  // one thread at a time in tests
    let kvoRegistrar = KVORegistrar()
    @Observed var x = 0
    @Observed var y = 0
    var sum: Int { x + y }
    /// Announced by hand, so that a set of `y` can be made between its will and its did.
    @Observed(automaticallyNotifies: false) var manual = 0
    var manualSum: Int { manual + y }
}

/// A computed property whose input the object's own deinit sets.
final class SelfResettingSum: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var a = 1
    @Observed var b = 2
    var sum: Int { a + b }

    deinit {
        a = 0
    }
}

/// A chain whose first link the object's own deinit replaces.
final class SelfRelinkingPerson: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var address = Address(city: "London")

    deinit {
        address = Address(city: "Gone")
    }
}

/// A box's sides, with computed properties whose values are small trivial types of each width a
/// re-evaluation holds as bytes (1, 9, 24 and 32 bytes), and one too wide for that.
final class Extent: KeyValueObservable, @unchecked Sendable {  // used by one thread at a time
    struct Size: Equatable {
        var width: Double
        var height: Double
        var depth: Double
    }

    struct Corners: Equatable {
        var left: Int
        var top: Int
        var right: Int
        var bottom: Int
    }

    struct Wide: Equatable {
        var corners: Corners
        var extra: Int
    }

    let kvoRegistrar = KVORegistrar()
    @Observed var width = 0.0
    @Observed var height = 0.0
    @Observed var depth = 0.0
    var isFlat: Bool { width == 0 || height == 0 || depth == 0 }
    var wholeWidth: Int? { width > 0 ? Int(width) : nil }
    var size: Size { Size(width: width, height: height, depth: depth) }
    var corners: Corners { Corners(left: 0, top: 0, right: Int(width), bottom: Int(height)) }
    var wide: Wide { Wide(corners: corners, extra: Int(depth)) }
}
