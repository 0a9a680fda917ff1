import OpenCombine

// OpenCombine's models, the same shapes as KVOModels.swift's, with `@Published` properties.

final class CombineCounter: @unchecked Sendable {
    @Published var x = 0
}

final class CombineLeaf: @unchecked Sendable {
    @Published var c = 0
}

final class CombineMiddle: @unchecked Sendable {
    @Published var b = CombineLeaf()
}

final class CombineRoot: @unchecked Sendable {
    @Published var a = CombineMiddle()
}

final class CombineSum: @unchecked Sendable {
    @Published var first = 0
    @Published var last = 0
    var sum: Int { first + last }
}

final class CombineList: @unchecked Sendable {
    @Published var items: [Int] = []
}

final class CombineDoubler: @unchecked Sendable {
    @Published var x = 0
}
