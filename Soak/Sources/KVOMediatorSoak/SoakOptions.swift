import Foundation

/// The command line: `KVOMediatorSoak [--threads N] [--seconds S]`.
struct SoakOptions {
    /// Threads that each own, set, observe and churn; far more than the machine's cores by default.
    var threads = 64
    /// How long the churning phase lasts.
    var seconds = 60.0

    static let usage = """
        usage: KVOMediatorSoak [--threads N] [--seconds S]
          --threads N   threads that set, observe, unobserve and release at once (default 64)
          --seconds S   how long they run (default 60)
        Exits 0 when every check passed, 1 on a violation or a leak, 2 on a bad argument,
        3 when the watchdog finds a thread that made no progress for 20 s.
        """

    /// Parses the arguments after the program's name; nil (after printing why) when they are not valid.
    static func parse(_ arguments: [String]) -> SoakOptions? {
        var options = SoakOptions()
        var remaining = arguments[...]
        while let flag = remaining.popFirst() {
            let value = remaining.popFirst()
            switch flag {
            case "--threads":
                guard let threads = value.flatMap({ Int($0) }), (1...4_096).contains(threads) else {
                    return invalid("--threads needs a whole number from 1 to 4096")
                }
                options.threads = threads
            case "--seconds":
                guard let seconds = value.flatMap({ Double($0) }), seconds > 0, seconds <= 86_400 else {
                    return invalid("--seconds needs a positive number of seconds")
                }
                options.seconds = seconds
            default:
                return invalid(flag == "--help" || flag == "-h" ? nil : "unknown argument \(flag)")
            }
        }
        return options
    }

    private static func invalid(_ problem: String?) -> SoakOptions? {
        let text = (problem.map { "KVOMediatorSoak: \($0)\n" } ?? "") + usage + "\n"
        FileHandle.standardError.write(Data(text.utf8))
        return nil
    }
}
