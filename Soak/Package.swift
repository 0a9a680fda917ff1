// swift-tools-version: 6.0
import PackageDescription

// An oversubscribed soak of KVOMediator: many threads observing, unobserving, setting and releasing
// at once for a bounded time, checking that every change arrives exactly once. A nested package, so
// that the library's own manifest keeps `dependencies: []` and its `swift build` never builds this.
// Run it with `Scripts/soak.sh` at the repository's root.
let package = Package(
    name: "KVOMediatorSoak",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "KVOMediator", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "KVOMediatorSoak",
            dependencies: [.product(name: "KVOMediator", package: "KVOMediator")],
            // Allowed in a root package only: the soak's own code stays free of warnings.
            swiftSettings: [.unsafeFlags(["-warnings-as-errors"])]
        )
    ],
    swiftLanguageModes: [.v6]
)
