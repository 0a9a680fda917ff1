// swift-tools-version: 6.1
import PackageDescription

// KVOMediator side by side with its peers (Observation, OpenCombine, a plain didSet closure).
// A nested package, so that the library's own manifest keeps `dependencies: []`.
// Run everything with `./run.sh`; it writes RESULTS.md and results.json next to this file.
let package = Package(
    name: "KVOMediatorBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "KVOMediator", path: ".."),
        // MallocInterposer backs the malloc count and byte metrics on Swift 6.3+.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
    ],
    // Both executables compile the shared models of Models/ (a symlink in each target's folder; see
    // Models/KVOModels.swift for why they are not a library target).
    targets: [
        .executableTarget(
            name: "KVOBenchmarks",
            dependencies: [
                .product(name: "KVOMediator", package: "KVOMediator"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            path: "Benchmarks/KVOBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark")
            ]
        ),
        // Exact instruction counts per operation, under callgrind: Scripts/callgrind.sh writes CALLGRIND.md.
        .executableTarget(
            name: "KVOCallgrind",
            dependencies: [
                .product(name: "KVOMediator", package: "KVOMediator"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            path: "Callgrind"
        ),
    ],
    swiftLanguageModes: [.v6]
)
