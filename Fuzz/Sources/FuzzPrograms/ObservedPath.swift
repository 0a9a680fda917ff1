import KVOMediator

/// The key paths of `Root` that programs observe, in typed, partial and string form.
enum ObservedPath: Int, CaseIterable {
    case value, middle, middleValue, middleLeaf, leafValue, items, tags, manual, total

    /// A single `@Observed` property of the root (not a chain, not computed).
    var isDirect: Bool {
        switch self {
        case .value, .middle, .items, .tags, .manual: true
        case .middleValue, .middleLeaf, .leafValue, .total: false
        }
    }

    /// Whether this key path, observed on `root`, reads `property` of `object` now: a change of it is
    /// delivered once. Chains read each link through the root's current links; `total` reads two.
    func reads(_ property: ObservedProperty, of object: AnyObject, from root: Root) -> Bool {
        let middle = root.middle
        let slots: [(AnyObject?, ObservedProperty)] =
            switch self {
            case .value: [(root, .value)]
            case .middle: [(root, .middle)]
            case .middleValue: [(root, .middle), (middle, .value)]
            case .middleLeaf: [(root, .middle), (middle, .leaf)]
            case .leafValue: [(root, .middle), (middle, .leaf), (middle?.leaf, .value)]
            case .items: [(root, .items)]
            case .tags: [(root, .tags)]
            case .manual: [(root, .manual)]
            case .total: [(root, .value), (root, .items)]
            }
        return slots.contains { $0.0 === object && $0.1 == property }
    }

    /// The string form; nil for the computed property, which strings cannot name.
    var string: String? {
        switch self {
        case .value: "value"
        case .middle: "middle"
        case .middleValue: "middle.value"
        case .middleLeaf: "middle.leaf"
        case .leafValue: "middle.leaf.value"
        case .items: "items"
        case .tags: "tags"
        case .manual: "manual"
        case .total: nil
        }
    }

    var partial: PartialKeyPath<Root> {
        visit(Partial())
    }

    /// Calls `visitor` with the typed key path.
    func visit<Visitor: RootPathVisitor>(_ visitor: Visitor) -> Visitor.Result {
        switch self {
        case .value: visitor.visit(\Root.value)
        case .middle: visitor.visit(\Root.middle)
        case .middleValue: visitor.visit(\Root.middle?.value)
        case .middleLeaf: visitor.visit(\Root.middle?.leaf)
        case .leafValue: visitor.visit(\Root.middle?.leaf?.value)
        case .items: visitor.visit(\Root.items)
        case .tags: visitor.visit(\Root.tags)
        case .manual: visitor.visit(\Root.manual)
        case .total: visitor.visit(\Root.total)
        }
    }

    private struct Partial: RootPathVisitor {
        func visit<Value>(_ keyPath: KeyPath<Root, Value>) -> PartialKeyPath<Root> { keyPath }
    }
}

/// An `@Observed` property of `Root`, `Middle` or `Leaf`: what a change is made to.
enum ObservedProperty {
    case value, middle, items, tags, manual, leaf
}

/// Something done with a typed key path of `Root`, whatever its value type.
protocol RootPathVisitor {
    associatedtype Result
    func visit<Value>(_ keyPath: KeyPath<Root, Value>) -> Result
}
