// swift-tools-version: 6.0
import PackageDescription

// Compile-fail probes: small programs that must NOT compile against KVOMediator, each with the error it
// must get, and one that must (so that a broken probe package cannot pass for a rejected program). A
// nested package, so that the library's manifest keeps `dependencies: []`. `Scripts/compile-fail-probes.sh`
// copies each program of `Cases/` into `Current/` (the one target's folder) and builds it.
let package = Package(
    name: "KVOMediatorCompileFailProbes",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "KVOMediator", path: "..")
    ],
    targets: [
        .target(
            name: "Probe",
            dependencies: [.product(name: "KVOMediator", package: "KVOMediator")],
            path: "Current"
        )
    ],
    swiftLanguageModes: [.v6]
)
