#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether `FUZZ_TRACE` is set: then targets print each step of an input, to read a crash file with.
///
/// ```sh
/// FUZZ_TRACE=1 Fuzz/.build/debug/FuzzPrograms crash-…
/// ```
public let isTracing = getenv("FUZZ_TRACE") != nil

/// Writes `message` to standard error when tracing, unbuffered, so that a crash loses none of it.
public func trace(_ message: @autoclosure () -> String) {
    guard isTracing else { return }
    let line = message() + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}
