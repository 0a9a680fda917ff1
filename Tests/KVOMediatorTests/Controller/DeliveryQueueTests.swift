import Foundation
import KVOMediator
import Synchronization
import Testing

@testable import KVOMediator

/// Delivery on a queue or on the main actor: values captured at change time, order kept per registration.
@Suite struct DeliveryQueueTests {
    @Test func queueDeliveryKeepsOrderOnAConcurrentQueueWithValuesCapturedAtChangeTime() async {
        let circle = Circle()
        let observer = TestObserver()
        let recorder = Recorder<Int>()
        let queue = DispatchQueue(label: "test.concurrent", attributes: .concurrent)
        observer.kvoController.observe(circle, keyPath: \.borderWidth, options: [.old, .new], delivery: .queue(queue)) {
            _,
            change in
            recorder.append(change)
        }
        for value in 1...500 {
            circle.borderWidth = value  // later sets never leak into earlier records
        }
        await waitUntil { recorder.count == 500 }
        #expect(recorder.changes.map(\.newValue) == (1...500).map { $0 })
        #expect(recorder.changes.map(\.oldValue) == (0..<500).map { $0 })
    }

    @Test func queueDeliveryRunsOnTheQueue() async {
        let circle = Circle()
        let observer = TestObserver()
        let queue = DispatchQueue(label: "test.serial")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 42)
        let seen = Recorder<Int>()
        observer.kvoController.observe(circle, keyPath: \.radius, delivery: .queue(queue)) { _, _ in
            seen.append(KVOChange(newValue: DispatchQueue.getSpecific(key: key), keyPath: \Circle.radius))
        }
        circle.radius = 2
        await waitUntil { seen.count == 1 }
        #expect(seen.changes.map(\.newValue) == [42])
    }

    @Test func queuedDeliveriesDoNotStartAfterUnobserveReturns() async {
        let circle = Circle()
        let observer = TestObserver()
        let counter = CallCounter()
        let queue = DispatchQueue(label: "test.blocked")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }  // hold the queue so deliveries pile up
        observer.kvoController.observe(circle, keyPath: \.radius, delivery: .queue(queue)) { _, _ in counter.increment()
        }
        circle.radius = 2
        circle.radius = 3
        observer.kvoController.unobserve(circle, keyPath: \.radius)
        gate.signal()
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(counter.count == 0)
    }

    @Test @MainActor func viewModelUpdatesItsMainActorStateFromObservations() {
        let profile = Profile()
        let viewModel = ProfileViewModel(profile: profile)
        #expect(viewModel.title == "Ada")
        #expect(viewModel.subtitle == "0 followers")
        profile.name = "Grace"
        profile.followers = 3
        #expect(viewModel.title == "Grace")  // changed on the main actor: delivered synchronously
        #expect(viewModel.subtitle == "3 followers")
        #expect(viewModel.updates == 2)
    }

    @Test @MainActor func changesMadeOnOtherThreadsReachTheViewModelOnTheMainActorInOrder() async {
        let feed = Feed()
        let viewModel = ProfileViewModel(profile: Profile())
        viewModel.track(feed)
        let titles = Recorder<String>()
        let token = try? feed.observe(\.headline, options: [.new]) { _, change in titles.append(change) }
        await withCheckedContinuation { continuation in
            let writer = Thread {
                for index in 1...200 { feed.headline = "headline \(index)" }
                continuation.resume()
            }
            writer.start()
        }
        await waitUntil { viewModel.updates == 201 }
        #expect(viewModel.title == "headline 200")
        #expect(titles.onMainThread.allSatisfy { !$0 })
        withExtendedLifetime(token) {}
    }

    @Test @MainActor func releasedViewModelIsNeverCalled() async {
        let feed = Feed()
        var viewModel: ProfileViewModel? = ProfileViewModel(profile: Profile())
        weak let weakViewModel = viewModel
        viewModel?.track(feed)
        viewModel = nil
        #expect(weakViewModel == nil)
        feed.headline = "nobody is listening"
        #expect(feed.kvoRegistrar.subscriptionCount == 0)
    }
}

/// Polls `condition` on the caller's actor, sleeping a millisecond between polls, for up to ten seconds.
func waitUntil(isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool) async {
    let deadline = Date().addingTimeInterval(10)
    while !condition() && Date() < deadline {
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
}
