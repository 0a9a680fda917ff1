import LibFuzzerDriver

/// Runs libFuzzer on `testOneInput`: the body of a fuzz target's `main`.
///
/// SwiftPM links an executable target with its `main` renamed to `<Module>_main` (so that tests can
/// link the module), and `-parse-as-library` leaves no `main` to rename; so each target defines
/// `<Module>_main` itself and hands over to libFuzzer's driver here, as libFuzzer's own `main` would.
///
/// ```swift
/// @_cdecl("FuzzPrograms_main")
/// public func fuzzProgramsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
///     runLibFuzzer(argc, argv, fuzzPrograms)
/// }
/// ```
public func runLibFuzzer(
    _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, testOneInput)
}
