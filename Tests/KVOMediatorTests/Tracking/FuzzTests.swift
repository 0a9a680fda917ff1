import KVOMediator
import Testing

@testable import KVOMediator

/// Bad string key paths are thrown errors, never crashes, and never leave a registration behind.
@Suite struct FuzzTests {
    /// A small deterministic generator (SplitMix64), so that a failure can be replayed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let validNames = ["name", "address", "secondHome", "nickname", "usesNickname"]
    static let addressNames = ["city", "street"]
    static let pieces = [
        "", ".", "..", "name", "address", "city", "street", "number", "secondHome", "plainNote", "displayName",
        "_name", "nom", "ñame", "名前", "👩‍💻", " ", "\t", "\0", "address ", "ADDRESS", "count", "self", "\\", "@",
        "kvoRegistrar", "1", "-", "?", "!", "address?", "name!",
    ]

    static func makeInput(_ generator: inout Generator) -> String {
        switch generator.next() % 8 {
        case 0:
            // Valid prefixes with an invalid or valid tail.
            let tail = pieces.randomElement(using: &generator)!
            return ["address", "address.street", "secondHome", "name"].randomElement(using: &generator)! + "." + tail
        case 1:
            // Dots only.
            return String(repeating: ".", count: Int(generator.next() % 6))
        case 2:
            // A long path (about 10 kB).
            return (0..<1_000).map { _ in pieces.randomElement(using: &generator)! }.joined(separator: ".")
        case 3:
            // Random unicode scalars.
            let scalars = (0..<Int(generator.next() % 12)).compactMap { _ in
                Unicode.Scalar(UInt32(generator.next() % 0x2_FFFF))
            }
            return String(String.UnicodeScalarView(scalars))
        default:
            // Random joins of pieces, with doubled, leading and trailing dots among them.
            let count = Int(generator.next() % 5)
            return (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined(separator: ".")
        }
    }

    /// What the library should accept: `@Observed` names of the object, then of the address.
    static func isValid(_ path: String) -> Bool {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, validNames.contains(first) else { return false }
        if parts.count == 1 { return true }
        // `secondHome` is nil: its components are checked against its declared type, Address, all the same.
        guard first == "address" || first == "secondHome" else { return false }
        guard addressNames.contains(parts[1]) else { return false }
        if parts.count == 2 { return true }
        return parts[1] == "street" && parts.count == 3 && parts[2] == "number"
    }

    @Test func tenThousandGeneratedKeyPathsAreErrorsOrValidRegistrations() {
        var generator = Generator(state: 0x5EED)
        let person = Person()
        let observer = TestObserver()
        var thrown = 0
        var accepted = 0
        for _ in 0..<10_000 {
            let path = Self.makeInput(&generator)
            do {
                try observer.kvoController.observe(person, keyPath: path) { _, _, _ in }
                accepted += 1
                #expect(Self.isValid(path), "accepted \(path.debugDescription)")
                observer.kvoController.unobserve(person, keyPath: path)
            } catch {
                thrown += 1
                #expect(!Self.isValid(path), "rejected \(path.debugDescription): \(error)")
                let message = (error as? KVOError)?.message ?? ""
                #expect(message.hasPrefix("KVOMediator: "))
                #expect(message.count < 2_000)
            }
            _ = person[kvoKeyPath: path]
        }
        #expect(thrown + accepted == 10_000)
        #expect(thrown > 5_000)
        #expect(accepted > 100)
        #expect(observer.kvoController.observationCount == 0)
        #expect(person.kvoRegistrar.subscriptionCount == 0)
        #expect(person.address.kvoRegistrar.subscriptionCount == 0)
    }
}
