#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// KVOCallgrind <scenario> <iterations>: builds the scenario, then performs its operation
// `iterations` times. `KVOCallgrind --list` prints the scenarios, one a line: the name, a space and
// the divisor of the operation counts to run it at (see `Scenario.divisor`).
// Run it through Scripts/callgrind.sh, which counts instructions under valgrind.

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments == ["--list"] {
    for scenario in allScenarios { print(scenario.name, scenario.divisor) }
} else if arguments.count == 2, let scenario = allScenarios.first(where: { $0.name == arguments[0] }),
    let iterations = Int(arguments[1]), iterations >= 0
{
    scenario.run(iterations)
} else {
    let names = allScenarios.map(\.name).joined(separator: "\n  ")
    let usage = "usage: KVOCallgrind <scenario> <iterations>, or KVOCallgrind --list\nscenarios:\n  \(names)\n"
    _ = usage.withCString { write(2, $0, strlen($0)) }
    exit(2)
}
