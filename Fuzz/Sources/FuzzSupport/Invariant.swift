/// Stops the fuzz target when an invariant of KVOMediator does not hold: libFuzzer records the input
/// that got here as a crash file, with this message in its output.
///
/// ```swift
/// invariant(controller.observationCount == 0, "a rejected key path left a registration")
/// ```
public func invariant(
    _ condition: @autoclosure () -> Bool,
    _ message: @autoclosure () -> String,
    file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() {
        fatalError("fuzz invariant broken: \(message())", file: file, line: line)
    }
}
