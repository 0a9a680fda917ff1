import Dispatch
import KVOMediator
import KVOMediatorTesting
import XCTest

/// The recorder in an XCTest case: the same calls, failures reported by XCTest.
final class KVORecorderXCTests: XCTestCase {
    func testARecorderWaitsForAQueueDeliveryInAnAsyncTest() async throws {
        let thermostat = Thermostat()
        let panel = Panel()
        let recorder = KVORecorder<Int>()
        let queue = DispatchQueue(label: "KVOMediatorTestingTests.xctest")
        panel.kvoController.observe(thermostat, keyPath: \.temperature, options: [.new], delivery: .queue(queue)) {
            _,
            change in recorder.record(change)
        }
        thermostat.temperature = 19
        let records = try await recorder.waitFor(1)
        XCTAssertEqual(records, [KVOChange(newValue: 19, keyPath: \Thermostat.temperature)])
        withExtendedLifetime(panel) {}
    }

    func testATimeoutIsAnErrorXCTestReports() async throws {
        let recorder = KVORecorder<Int>()
        do {
            _ = try await recorder.next(timeout: .milliseconds(20))
            XCTFail("next() returned a record nobody made")
        } catch let timeout as KVOTestTimeout {
            XCTAssertEqual(timeout.expected, 1)
            XCTAssertEqual(timeout.received, 0)
        }
    }
}
