import Foundation
import KVOMediator
import Testing

@testable import KVOMediator

/// Value and change streams: initial value first, then each change; they end with the object or the task.
@Suite struct ValueStreamTests {
    @Test func valuesStartWithTheCurrentValueThenEachChange() async throws {
        let circle = Circle(radius: 1)
        let values = try circle.values(for: \.radius)
        circle.radius = 2
        circle.radius = 3
        var iterator = values.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == 2)
        #expect(await iterator.next() == 3)
    }

    @Test func streamFinishesWhenTheObjectDeinitialises() async throws {
        var circle: Circle? = Circle(radius: 5)
        let values = try circle!.values(for: \.radius)
        circle!.radius = 6
        circle = nil
        var collected: [Double] = []
        for await value in values {
            collected.append(value)
        }
        #expect(collected == [5, 6])
    }

    @Test func valuesArriveFromAnotherThreadInOrder() async throws {
        let circle = Circle(radius: 0)
        let values = try circle.values(for: \.radius)
        let writer = TestThread {
            for value in 1...1_000 {
                circle.radius = Double(value)
            }
        }
        var collected: [Double] = []
        for await value in values {
            collected.append(value)
            if value == 1_000 { break }
        }
        writer.join()
        #expect(collected == (0...1_000).map(Double.init))
    }

    @Test func changeStreamCarriesExactRecords() async throws {
        let playlist = Playlist()
        let changes = try playlist.changes(for: \.songs, options: [.initial, .old, .new])
        playlist.mutableArrayValue(for: \.songs).append("a")
        playlist.songs = ["z"]
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == change(\Playlist.songs, new: []))
        #expect(
            await iterator.next()
                == change(\Playlist.songs, kind: .insertion, new: ["a"], indexes: IndexSet(integer: 0))
        )
        #expect(await iterator.next() == change(\Playlist.songs, old: ["a"], new: ["z"]))
    }

    @Test func cancellingTheConsumingTaskRemovesTheRegistration() async throws {
        let circle = Circle()
        let values = try circle.values(for: \.radius)
        let consumer = Task {
            var count = 0
            for await _ in values { count += 1 }
            return count
        }
        while circle.kvoRegistrar.subscriptionCount == 0 { await Task.yield() }
        consumer.cancel()
        let count = await consumer.value
        #expect(count <= 1)  // at most the current value: nothing changed
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func droppingTheIteratorRemovesTheRegistration() async throws {
        let circle = Circle()
        do {
            let values = try circle.values(for: \.radius)
            var iterator = values.makeAsyncIterator()
            _ = await iterator.next()
            #expect(circle.kvoRegistrar.subscriptionCount == 1)
        }
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func droppingAnUnusedSequenceRemovesTheRegistration() throws {
        let circle = Circle()
        do {
            _ = try circle.values(for: \.radius)
        }
        #expect(circle.kvoRegistrar.subscriptionCount == 0)
    }

    @Test func latestBufferingKeepsOnlyTheNewestValue() async throws {
        let circle = Circle(radius: 0)
        let values = try circle.values(for: \.radius, buffering: .latest)
        for value in 1...10 { circle.radius = Double(value) }
        var iterator = values.makeAsyncIterator()
        #expect(await iterator.next() == 10)
        circle.radius = 11
        #expect(await iterator.next() == 11)
    }

    @Test func streamOfAChainFollowsReplacements() async throws {
        let person = Person(city: "Oslo")
        let cities = try person.values(for: \.address.city)
        person.address = Address(city: "Bergen")
        person.address.city = "Tromsø"
        var iterator = cities.makeAsyncIterator()
        #expect(await iterator.next() == "Oslo")
        #expect(await iterator.next() == "Bergen")
        #expect(await iterator.next() == "Tromsø")
    }

    @Test func streamForAKeyPathReadingNothingObservableThrows() {
        let circle = Circle()
        #expect(throws: KVOError.self) { _ = try circle.values(for: \.plainTag) }
    }
}
