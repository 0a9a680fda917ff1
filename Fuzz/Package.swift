// swift-tools-version: 6.0
import PackageDescription

// Coverage-guided fuzz targets for KVOMediator (libFuzzer). A nested package, so that the library keeps
// zero dependencies and `swift build` at the root never builds fuzz code. Build and run with
// `Scripts/fuzz.sh` (see README.md): the targets link only with
// `-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library`, which links libFuzzer in.
let package = Package(
    name: "KVOMediatorFuzz",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        .package(name: "KVOMediator", path: "..")
    ],
    targets: [
        // Reading bytes, trapping on a broken invariant, and checking that objects deinitialise.
        .target(name: "FuzzSupport", dependencies: ["LibFuzzerDriver"]),
        // The declaration of libFuzzer's driver, which each target's `main` calls.
        .target(name: "LibFuzzerDriver"),
        // Bytes → string key paths over a fixed world of model classes.
        .executableTarget(
            name: "FuzzStringKeyPaths",
            dependencies: ["FuzzSupport", .product(name: "KVOMediator", package: "KVOMediator")]
        ),
        // Bytes → programs of observe, unobserve, mutate and release operations.
        .executableTarget(
            name: "FuzzPrograms",
            dependencies: ["FuzzSupport", .product(name: "KVOMediator", package: "KVOMediator")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
