import FuzzSupport

/// libFuzzer's entry point: one input is one `Program`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPrograms(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    Program.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

/// The executable's `main` (see `runLibFuzzer`).
@_cdecl("FuzzPrograms_main")
public func fuzzProgramsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzPrograms)
}
