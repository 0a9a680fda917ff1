import Observation

// Observation's models, the same shapes as KVOModels.swift's.

@Observable final class ObservationCounter: @unchecked Sendable {
    var x = 0
}

@Observable final class ObservationLeaf: @unchecked Sendable {
    var c = 0
}

@Observable final class ObservationMiddle: @unchecked Sendable {
    var b = ObservationLeaf()
}

@Observable final class ObservationRoot: @unchecked Sendable {
    var a = ObservationMiddle()
}

@Observable final class ObservationSum: @unchecked Sendable {
    var first = 0
    var last = 0
    var sum: Int { first + last }
}

@Observable final class ObservationList: @unchecked Sendable {
    var items: [Int] = []
}

@Observable final class ObservationLink5: @unchecked Sendable {
    var e = 0
}

@Observable final class ObservationLink4: @unchecked Sendable {
    var d = ObservationLink5()
}

@Observable final class ObservationLink3: @unchecked Sendable {
    var c = ObservationLink4()
}

@Observable final class ObservationLink2: @unchecked Sendable {
    var b = ObservationLink3()
}

@Observable final class ObservationLink1: @unchecked Sendable {
    var a = ObservationLink2()
}
