import Foundation
import KVOMediator

/// Where a run first disagreed with the model: the operation's position and what differed.
struct ModelFailure {
    let operation: Int
    let message: String
}

/// Runs programs against the library and the model side by side, comparing every operation's records
/// record for record, and shrinks a failing program to its shortest failing prefix.
enum ProgramRunner {
    /// Runs `operations`, then the teardown the model derives from where they leave the world.
    static func run(_ operations: ArraySlice<ModelOperation>) async -> ModelFailure? {
        var model = ReferenceModel()
        let world = LibraryWorld()
        for (index, operation) in operations.enumerated() {
            if let failure = await step(operation, at: index, model: &model, world: world) { return failure }
        }
        for (offset, operation) in model.teardown().enumerated() {
            let index = operations.count + offset
            if let failure = await step(operation, at: index, model: &model, world: world) { return failure }
        }
        return nil
    }

    private static func step(
        _ operation: ModelOperation,
        at index: Int,
        model: inout ReferenceModel,
        world: LibraryWorld
    ) async -> ModelFailure? {
        let expected = model.apply(operation)
        let drained = await world.perform(operation)
        var problems = world.journal.takeProblems()
        problems += differences(expected, world.journal.takeReceived())
        if let stream = expected.closedStream {
            let received = drained ?? []
            let required = stream.required ?? stream.expected.count
            if !isPrefix(received, of: stream.expected, atLeast: required) {
                problems.append(
                    "r\(stream.registration) (stream) received \(received), expected \(stream.expected)"
                        + (required < stream.expected.count ? " or a prefix of it of at least \(required)" : "")
                )
            }
        }
        problems += world.differences(from: model)
        guard !problems.isEmpty else { return nil }
        return ModelFailure(operation: index, message: problems.joined(separator: "\n"))
    }

    /// What the library delivered that the model does not state, registration by registration.
    private static func differences(_ expected: ModelStep, _ received: [Int: [ModelRecord]]) -> [String] {
        var found: [String] = []
        for id in Set(expected.expected.keys).union(received.keys).sorted() {
            let wanted = expected.expected[id] ?? []
            let got = received[id] ?? []
            if let certain = expected.certain[id], !expected.cutShort.contains(id) {
                if !isPrefix(got, of: wanted, atLeast: certain) {
                    found.append("r\(id) received \(got), expected \(wanted) or a prefix of it of at least \(certain)")
                }
            } else if expected.cutShort.contains(id) {
                let minimum = expected.trigger?.registration == id ? expected.trigger!.records : 0
                if !isPrefix(got, of: wanted, atLeast: minimum) {
                    found.append("r\(id) received \(got), expected a prefix of \(wanted) of at least \(minimum)")
                }
            } else if got != wanted {
                found.append("r\(id) received \(got), expected \(wanted)")
            }
        }
        return found
    }

    private static func isPrefix(_ records: [ModelRecord], of expected: [ModelRecord], atLeast minimum: Int) -> Bool {
        records.count >= minimum && records.count <= expected.count && Array(expected.prefix(records.count)) == records
    }

    /// The shortest prefix of `program` that still fails, found by bisecting its length (a prefix
    /// ending at the failing operation fails, and the empty program passes), with its failure.
    static func shortestFailingPrefix(
        of program: [ModelOperation],
        failure: ModelFailure
    ) async -> (length: Int, failure: ModelFailure) {
        var high = min(program.count, failure.operation + 1)
        guard let confirmed = await run(program[..<high]) else { return (program.count, failure) }
        var highFailure = confirmed
        var low = 0
        while high - low > 1 {
            let middle = (low + high) / 2
            if let failure = await run(program[..<middle]) {
                high = middle
                highFailure = failure
            } else {
                low = middle
            }
        }
        return (high, highFailure)
    }

    /// A report to replay from: the seed, the shortest failing prefix as code (registrations numbered
    /// as the model numbers them), the teardown position if that is where it failed, and the difference.
    static func report(seed: UInt64, program: [ModelOperation], length: Int, failure: ModelFailure) -> String {
        var lines = [
            "Seed \(seed): the library and the model disagree; shortest failing prefix: \(length) operations.",
            "Replay: KVO_MODEL_SEED=\(seed) swift test --filter ReferenceModelTests",
        ]
        var registration = 0
        for (index, operation) in program.prefix(length).enumerated() {
            let attempts = operation.registrationAttempts
            let numbers = (registration..<registration + attempts).map { "r\($0)" }.joined(separator: ", ")
            registration += attempts
            lines.append(String(format: "%4d  ", index) + "\(operation)" + (numbers.isEmpty ? "" : "  // \(numbers)"))
        }
        if failure.operation >= length {
            // The teardown the model derives from where the prefix leaves the world.
            var model = ReferenceModel()
            for operation in program.prefix(length) { _ = model.apply(operation) }
            for (offset, operation) in model.teardown().enumerated() {
                lines.append(String(format: "%4d  ", length + offset) + "\(operation)  // teardown")
            }
        }
        lines.append("At operation \(failure.operation):")
        lines.append(failure.message)
        return lines.joined(separator: "\n")
    }
}

extension ModelOperation {
    /// How many registrations the operation tries to make (and numbers).
    var registrationAttempts: Int {
        switch self {
        case .observe(_, _, _, let keys, _): keys.count
        case .newToken, .openValues, .openChanges: 1
        default: 0
        }
    }
}
