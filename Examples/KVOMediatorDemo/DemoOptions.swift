import Foundation

/// The command line: `[--plain] [--downloads N] [--help]`.
struct DemoOptions {
    static let usage = """
        KVOMediatorDemo: a download manager whose dashboard is driven only by key-value observations.

        usage: swift run KVOMediatorDemo [--plain] [--downloads N] [--help]
          (no option)    a live dashboard in this terminal, until you press q
          --plain        a short scripted run printed as lines, ending with a check that everything
                         was released (the default when standard input or output is not a terminal)
          --downloads N  how many downloads to start with, 1...50 (default 5)
          --help         show this help

        keys: up/down (or k/j) select, p pause/resume, c cancel, a add, +/- speed,
              x clear finished, q quit (Ctrl-C also quits, restoring the terminal)
        """

    /// Whether to run the scripted run instead of the live dashboard.
    var plain = false
    /// How many downloads to start with.
    var downloads = 5

    /// Parses `arguments` (without the program's name). On `--help` it prints the usage and exits 0;
    /// on a mistake it prints the mistake and the usage to standard error and exits 2.
    static func parse(_ arguments: some Sequence<String>) -> DemoOptions {
        var options = DemoOptions()
        var arguments = arguments.makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--plain":
                options.plain = true
            case "--downloads":
                guard let value = arguments.next().flatMap(Int.init), (1...50).contains(value) else {
                    fail("--downloads takes a whole number from 1 to 50")
                }
                options.downloads = value
            case "--help", "-h":
                print(usage)
                exit(0)
            default:
                fail("unknown option \(argument)")
            }
        }
        return options
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("KVOMediatorDemo: \(message)\n\n\(usage)\n".utf8))
        exit(2)
    }
}
