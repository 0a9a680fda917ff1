import FuzzSupport

/// libFuzzer's entry point: one input is one `KeyPathCase`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStringKeyPaths(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    KeyPathCase(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []).run()
    return 0
}

/// The executable's `main` (see `runLibFuzzer`).
@_cdecl("FuzzStringKeyPaths_main")
public func fuzzStringKeyPathsMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, fuzzStringKeyPaths)
}
