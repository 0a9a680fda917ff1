import Testing

@testable import KVOMediator

/// The code path a build was made with: CI builds the Apple platforms' path on Linux too
/// (`-Xswiftc -DKVOMEDIATOR_APPLE_PATH`), so the suite must be running the path it was asked for.
@Suite struct PlatformPathTests {
    @Test func observedObjectsAreHeldAsThePlatformPathSays() {
        #if canImport(ObjectiveC) || KVOMEDIATOR_APPLE_PATH
        // A `weak` reference and the object's identity.
        #expect(MemoryLayout<ObjectPin<Circle>>.size == 2 * MemoryLayout<Int>.size)
        #else
        // The object's address, its memory pinned by the runtime's unowned count.
        #expect(MemoryLayout<ObjectPin<Circle>>.size == MemoryLayout<Int>.size)
        #endif
    }
}
