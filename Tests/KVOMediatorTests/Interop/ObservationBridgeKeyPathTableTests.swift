import Observation
import Testing

@testable import KVOMediator

/// The bridge's table in use: in an optimised build, the first read or set of a bridged property
/// registers its key path, and every read and set after reports that one object; a debug build, which
/// passes no storage offset, registers nothing.
@Suite struct ObservationBridgeKeyPathTableTests {
    @Test func thePropertysFirstAccessRegistersTheKeyPathEveryLaterOneReports() throws {
        let model = KeyPathTableModel()
        _ = model.x  // The first reported read, which makes the bridge.
        let loaded = model.kvoRegistrar.observationBridge.load()
        let bridge = try #require(loaded)
        let first = bridge.keyPaths.registered(field: model.xOffset)
        #if DEBUG
        #expect(first == nil)
        #expect((0..<CanonicalKeyPaths.slotCount).allSatisfy { bridge.keyPaths.slots.key(at: $0) == 0 })
        #else
        let registered = try #require(first)
        #expect(registered == \KeyPathTableModel.x)
        model.x = 1
        _ = model.x
        model.y = 2
        #expect(bridge.keyPaths.registered(field: model.xOffset) === registered)
        let yRegistered = bridge.keyPaths.registered(field: model.yOffset)
        let y = try #require(yRegistered)
        #expect(y == \KeyPathTableModel.y && y !== registered)
        #endif
    }
}

/// A bridged model whose storage offsets the test reads.
private final class KeyPathTableModel: KeyValueObservable, Observable, @unchecked Sendable {
    let kvoRegistrar = KVORegistrar()
    @Observed var x = 0
    @Observed var y = 0

    var xOffset: Int { _storageOffset(\KeyPathTableModel._x, of: self) }
    var yOffset: Int { _storageOffset(\KeyPathTableModel._y, of: self) }
}

extension CanonicalKeyPaths {
    /// The key path registered for the property at `field`, if one is (registering nothing).
    fileprivate func registered(field: Int) -> AnyKeyPath? {
        let bits = slots.find(UInt(bitPattern: field) &+ 1, from: Self.home(of: field))
        guard let address = UnsafeRawPointer(bitPattern: bits) else { return nil }
        return Unmanaged<AnyKeyPath>.fromOpaque(address).takeUnretainedValue()
    }
}
