import Foundation

// A download manager whose dashboard is driven only by KVOMediator observations.
// Live in a terminal until `q`; with --plain (or when standard input or output is not a terminal) a
// scripted run that ends by checking that everything was released. See DemoOptions.usage.

let options = DemoOptions.parse(CommandLine.arguments.dropFirst())
let plain = options.plain || !TerminalSession.isInteractive
Task { @MainActor in
    let status =
        plain
        ? await PlainRun.run(downloads: options.downloads)
        : await InteractiveRun.run(downloads: options.downloads)
    exit(status)
}
// The main run loop runs the main queue: main-actor deliveries, the tasks on the main actor and the
// terminal's sources. (Not an async `main`: that ends in dispatchMain(), which exits the main thread,
// and valgrind, which CI runs the demo under, does not survive threads made after that.)
RunLoop.main.run()
