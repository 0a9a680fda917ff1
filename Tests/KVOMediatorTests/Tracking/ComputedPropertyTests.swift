import KVOMediator
import Testing

@testable import KVOMediator

/// Computed properties are observable with no declaration; dependencies are re-tracked on each change.
@Suite struct ComputedPropertyTests {
    @Test func computedPropertyFiresWhenEitherDependencyChanges() {
        let task = DownloadTask()
        let observer = TestObserver()
        let recorder = Recorder<Double>()
        observer.kvoController.observe(task, keyPath: \.progress, options: [.old, .new]) { _, _, change in
            recorder.append(change)
        }
        task.receivedBytes = 50
        task.totalBytes = 200
        #expect(
            recorder.changes == [
                change(\DownloadTask.progress, old: 0.0, new: 0.5), change(\DownloadTask.progress, old: 0.5, new: 0.25),
            ]
        )
    }

    @Test func aSetOfItsObjectReadsTheObjectTheSetterHoldsAndNoneOnceItIsDeinitialising() {
        let observer = TestObserver()
        let recorder = Recorder<Int>()
        var object: SelfResettingSum? = SelfResettingSum()
        observer.kvoController.observe(object, keyPath: \.sum, options: [.old, .new]) { _, object, change in
            recorder.append(change)
            #expect(object.sum == change.newValue)
        }
        object?.a = 5
        object?.b = 4
        #expect(
            recorder.changes == [
                change(\SelfResettingSum.sum, old: 3, new: 7), change(\SelfResettingSum.sum, old: 7, new: 9),
            ]
        )
        // Its deinit sets `a`: a record would hand the callback an object that is going.
        object = nil
        #expect(recorder.count == 2)
    }

    @Test func conditionalDependenciesAreRetrackedOnEveryChange() {
        let person = Person(name: "Ada")
        person.nickname = "Countess"
        let observer = TestObserver()
        let recorder = Recorder<String>()
        observer.kvoController.observe(person, keyPath: \.displayName, options: [.new]) { _, _, change in
            recorder.append(change)
        }
        person.nickname = "Lady"  // not read while usesNickname is false: no notification
        person.usesNickname = true
        person.name = "Augusta"  // no longer read: no notification
        person.nickname = "Lovelace"
        person.usesNickname = false
        person.nickname = "ignored"
        #expect(recorder.changes.map(\.newValue) == ["Lady", "Lovelace", "Augusta"])
    }

    @Test func computedPropertyMayReadOtherObjects() {
        let person = Person(name: "Ada", city: "London")
        let observer = TestObserver()
        let recorder = Recorder<String>()
        final class Card: KeyValueObservable {
            let kvoRegistrar = KVORegistrar()
            let person: Person
            var line: String { "\(person.name), \(person.address.city)" }
            init(person: Person) { self.person = person }
        }
        let card = Card(person: person)
        observer.kvoController.observe(card, keyPath: \.line, options: [.new]) { _, _, change in
            recorder.append(change)
        }
        person.address.city = "Paris"
        person.name = "Grace"
        #expect(recorder.changes.map(\.newValue) == ["Ada, Paris", "Grace, Paris"])
    }

    /// A computed property that stops reading its own object (here, once another object's flag is
    /// set) still ends with its object: the token becomes invalid, the controller forgets it, and
    /// the callbacks are released.
    @Test func aRegistrationThatStopsReadingItsObjectStillEndsWithIt() throws {
        let session = Session()
        let observer = TestObserver()
        var member: Member? = Member(session: session)
        weak var weakProbe: CapturedProbe?
        let token: KVOObservation
        do {
            let probe = CapturedProbe()
            weakProbe = probe
            token = try member!.observe(\.shownName) { _, _ in withExtendedLifetime(probe) {} }
            observer.kvoController.observe(member, keyPath: \.shownName) { _, _, _ in withExtendedLifetime(probe) {}
            }
        }
        session.anonymous = true  // re-read: now reads only the session
        member = nil
        #expect(!token.isValid)
        #expect(observer.kvoController.observationCount == 0)
        #expect(session.kvoRegistrar.subscriptionCount == 0)
        #expect(weakProbe == nil)
    }

    /// Reading its own object again, it is listed once there (not also for the object's lifetime).
    @Test func aRegistrationThatReadsItsObjectAgainIsListedOnce() throws {
        let session = Session()
        let member = Member(session: session)
        let observer = TestObserver()
        let recorder = Recorder<String>()
        observer.kvoController.observe(member, keyPath: \.shownName, options: [.new]) { _, _, change in
            recorder.append(change)
        }
        #expect(member.kvoRegistrar.subscriptionCount == 1)
        session.anonymous = true
        #expect(member.kvoRegistrar.subscriptionCount == 1)  // for its lifetime only
        session.anonymous = false
        #expect(member.kvoRegistrar.subscriptionCount == 1)  // for `name` only
        member.name = "Grace"
        #expect(recorder.changes.map(\.newValue) == ["anonymous", "Ada", "Grace"])
    }

    /// A computed property that reads only other objects from the start ends with its own object.
    @Test func aRegistrationThatNeverReadsItsObjectEndsWithIt() {
        let person = Person(name: "Ada", city: "London")
        let observer = TestObserver()
        final class Card: KeyValueObservable {
            let kvoRegistrar = KVORegistrar()
            let person: Person
            var line: String { "\(person.name), \(person.address.city)" }
            init(person: Person) { self.person = person }
        }
        var card: Card? = Card(person: person)
        observer.kvoController.observe(card, keyPath: \.line) { _, _, _ in }
        #expect(observer.kvoController.observationCount == 1)
        card = nil
        #expect(observer.kvoController.observationCount == 0)
        #expect(person.kvoRegistrar.subscriptionCount == 0)
        #expect(person.address.kvoRegistrar.subscriptionCount == 0)
    }

    /// Two evaluations of one registration may prune out of order (on two threads): the older one,
    /// pruning last, is ignored, and the newer one subscribes again what it read even if the older
    /// one dropped it meanwhile.
    @Test func anOlderEvaluationPruningFirstDoesNotLoseWhatANewerOneRead() throws {
        let person = Person(name: "Ada")
        let counter = CallCounter()
        let info = TypedKVOInfo(
            object: person,
            reader: .typed(\Person.name),
            options: [.new],
            owner: nil,
            box: _HandlerBox<Person, String> { _, _ in counter.increment() },
            onObjectDeinit: nil
        )
        try info.start(on: person, readsValue: false) { _ in }
        defer { info.cancel() }
        let older = info.nextTicket()
        let newer = info.nextTicket()
        info.prune(keeping: [], ticket: older)  // the older evaluation read nothing of `name`
        info.prune(keeping: ReadProbe.reads(of: \Person.name, on: person), ticket: newer)
        person.name = "Grace"
        #expect(counter.count == 1)
        info.prune(keeping: [], ticket: older)  // older than what was applied: ignored
        person.name = "Ada"
        #expect(counter.count == 2)
    }

    @Test func declaredAffectingKeyPathsCoverWhatTrackingCannotSee() {
        let warm = CachedReport()
        _ = warm.summary  // warm the cache: reading summary now reads nothing observable
        let observer = TestObserver()
        let errors = ErrorLog()
        observer.kvoController.errorHandler = { errors.append($0) }
        observer.kvoController.observe(warm, keyPath: \.summary) { _, _, _ in }
        #expect(errors.errors.map(\.reason) == [.nothingObservable])

        let declared = DeclaredReport()
        _ = declared.summary
        let recorder = Recorder<String>()
        observer.kvoController.observe(declared, keyPath: \.summary, options: [.new]) { _, _, change in
            recorder.append(change)
        }
        declared.add(1)
        declared.add(2)
        #expect(recorder.changes.map(\.newValue) == ["1 entries", "2 entries"])
    }

    @Test func keyPathReadingOnlyPlainPropertiesIsAnErrorNamingTypeAndKeyPath() {
        let person = Person()
        let observer = TestObserver()
        let errors = ErrorLog()
        observer.kvoController.errorHandler = { errors.append($0) }
        observer.kvoController.observe(person, keyPath: \.plainNote) { _, _, _ in }
        let error = errors.errors.first
        #expect(error?.reason == .nothingObservable)
        #expect(error?.typeName == "Person")
        #expect(error?.keyPath == "\\Person.plainNote")
        #expect(
            error?.message
                == "KVOMediator: the key path \\Person.plainNote of Person reads no observable property, so no "
                + "change to it could ever be announced. Mark the stored properties it reads with @Observed (in a "
                + "KeyValueObservable class), or report reads of custom storage with accessValue(for:) and announce "
                + "changes with willChangeValue(for:)/didChangeValue(for:)."
        )
        #expect(person.kvoRegistrar.subscriptionCount == 0)
        // Nothing is left behind: the controller holds nothing, and trying again fails again (the
        // failed registration does not count as observing the key path).
        #expect(observer.kvoController.observationCount == 0)
        observer.kvoController.observe(person, keyPath: \.plainNote) { _, _, _ in }
        #expect(errors.errors.count == 2)
        #expect(observer.kvoController.observationCount == 0)
    }
}

/// A flag that members read in their computed name.
private final class Session: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var anonymous = false
}

/// Its `shownName` reads its own `name` only while the session is not anonymous.
private final class Member: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    let session: Session
    @Observed var name = "Ada"
    var shownName: String { session.anonymous ? "anonymous" : name }
    init(session: Session) { self.session = session }
}
