// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "KVOMediator",
    // Synchronization's Atomic is what the no-observer setter checks; it needs these releases.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "KVOMediator", targets: ["KVOMediator"]),
        // Recorders and waits for tests of code that observes; it depends on neither XCTest nor Swift Testing.
        .library(name: "KVOMediatorTesting", targets: ["KVOMediatorTesting"]),
    ],
    targets: [
        .target(name: "KVOMediator", dependencies: ["KVORuntimeShims"]),
        .target(name: "KVOMediatorTesting", dependencies: ["KVOMediator"]),
        // One Swift runtime entry point, declared in C (see WeakReference); no code of its own.
        .target(name: "KVORuntimeShims"),
        .executableTarget(
            name: "KVOMediatorDemo",
            dependencies: ["KVOMediator"],
            path: "Examples/KVOMediatorDemo"
        ),
        // Small programs that use KVOMediator as its peers are used, each checking its own results.
        .executableTarget(
            name: "FBKVOControllerStyle",
            dependencies: ["KVOMediator"],
            path: "Examples/FBKVOControllerStyle"
        ),
        .executableTarget(
            name: "CocoaKVOStyle",
            dependencies: ["KVOMediator"],
            path: "Examples/CocoaKVOStyle"
        ),
        .executableTarget(
            name: "RACObserveStyle",
            dependencies: ["KVOMediator"],
            path: "Examples/RACObserveStyle"
        ),
        .executableTarget(
            name: "ObservationStyle",
            dependencies: ["KVOMediator"],
            path: "Examples/ObservationStyle"
        ),
        .testTarget(name: "KVOMediatorTests", dependencies: ["KVOMediator"]),
        .testTarget(name: "KVOMediatorTestingTests", dependencies: ["KVOMediator", "KVOMediatorTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
