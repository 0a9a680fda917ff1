import Synchronization

/// Collects the observable reads made while a key path is evaluated.
///
/// With a registration attached, each new read subscribes it at once, before the getter returns its
/// value: a change that lands after the read is then always announced, never lost in between.
///
/// A tracker is used by the one thread that evaluates with it (its ``GuardedFields`` rule), so its
/// state (`fields`) is not checked for overlapping accesses at run time: two checks per read otherwise.
/// Getters report to it as a ``ReadRecorder``.
final class AccessTracker: ReadRecorder {
    struct Fields {
        var accesses: [Access] = []
        var registration: Unretained<SlotObserver>?
        var readCount: Int = 0
        var expected: [(registrar: ObjectIdentifier, field: Int)] = []
        var expectedCount: Int = 0
        var expectedSince: UInt16 = 0
        var remembered: (registration: ObjectIdentifier, ticket: UInt16, count: Int)?
        var matching: Matching = Matching.matched(0)
        var undeclaredFields = RecentRing<(type: ObjectIdentifier, field: Int)>(capacity: AccessTracker.answersKept)
        var declaredReads: [DeclaredRead] = []
        var declaredAnswers = RecentRing<DeclaredAnswer>(capacity: AccessTracker.answersKept)
        /// Answers an evaluation may still be reading that `declaredAnswers` does not hold (see
        /// `declaredAnswer(affecting:of:)`), until the tracker is cleared.
        var heldAnswers: [DeclaredAnswer] = []
    }

    var accesses: [Access] {
        @inline(__always) _read { yield fields.guarded.accesses }
        @inline(__always) _modify { yield &fields.guarded.accesses }
    }
    /// Unretained: a registration evaluates with a tracker inside one of its own methods, and recycles
    /// it before returning (``reused(subscribing:)``), so it outlives its tracker's use of it.
    var registration: Unretained<SlotObserver>? {
        @inline(__always) _read { yield fields.guarded.registration }
        @inline(__always) _modify { yield &fields.guarded.registration }
    }

    /// The tracker's state, in an object of its own (this class's base is the getters' ``ReadRecorder``).
    private let fields = GuardedFields(guarded: Fields())
    /// Set on a tracker that lists what a key path depends on (`kvoDependencies(of:)`), subscribing nothing:
    /// it follows declared dependencies as a registration's does. (Such a tracker is never reused.)
    var listsDependencies = false

    init(subscribing registration: SlotObserver?) {
        super.init()
        self.registration = registration.map { Unretained($0) }
        // Room for a chain of a few links at once, rather than growing 1, 2, 4 (a copy each).
        accesses.reserveCapacity(4)
    }

    /// How many reads were reported, repeated ones included.
    var readCount: Int {
        @inline(__always) _read { yield fields.guarded.readCount }
        @inline(__always) _modify { yield &fields.guarded.readCount }
    }
    /// A re-evaluation's expected reads (`AccessTracker+ExpectedReads`): the registration's dependencies
    /// when it began, each an `@Observed` slot, as its registrar's address and its field; the first
    /// `expectedCount` are this evaluation's (the array keeps its elements, rewritten in place).
    var expected: [(registrar: ObjectIdentifier, field: Int)] {
        @inline(__always) _read { yield fields.guarded.expected }
        @inline(__always) _modify { yield &fields.guarded.expected }
    }
    var expectedCount: Int {
        @inline(__always) _read { yield fields.guarded.expectedCount }
        @inline(__always) _modify { yield &fields.guarded.expectedCount }
    }
    /// The registration's applied ticket when `expected` was copied (or remembered).
    var expectedSince: UInt16 {
        @inline(__always) _read { yield fields.guarded.expectedSince }
        @inline(__always) _modify { yield &fields.guarded.expectedSince }
    }
    /// The registration (its address) whose dependencies the first `count` of `expected` still are, as
    /// of its applied ticket `ticket` (see `expect(dependenciesOf:)`); nil once `expected` is rewritten.
    var remembered: (registration: ObjectIdentifier, ticket: UInt16, count: Int)? {
        @inline(__always) _read { yield fields.guarded.remembered }
        @inline(__always) _modify { yield &fields.guarded.remembered }
    }
    /// How the reads compare with `expected` so far (see ``Matching``).
    var matching: Matching {
        @inline(__always) _read { yield fields.guarded.matching }
        @inline(__always) _modify { yield &fields.guarded.matching }
    }

    /// How an evaluation's reads compare with the reads expected of it (`AccessTracker+ExpectedReads`):
    /// ``matched(_:)``, ``stopped`` or ``mustRecordAgain``, in one word (an enum with a payload, its tag
    /// beside it, cost 9 to 13 more instructions per re-evaluation).
    struct Matching: Equatable {
        /// The count matched, or -1 (stopped), or -2 (must record again).
        private let word: Int

        /// This many of `expected` were read, in order, and nothing else.
        @inline(__always)
        static func matched(_ count: Int) -> Matching { Matching(word: count) }

        /// A read was not the one expected: the reads matched before it were recorded, and reads are
        /// recorded from then on.
        @inline(__always)
        static var stopped: Matching { Matching(word: -1) }

        /// The reads matched could not be recorded (the dependencies changed meanwhile): the evaluation
        /// is done again.
        @inline(__always)
        static var mustRecordAgain: Matching { Matching(word: -2) }

        /// The count matched, while matching.
        @inline(__always)
        var matchedCount: Int? { word >= 0 ? word : nil }
    }
    /// `@Observed` properties, as their object's class and field, whose class declares no key paths
    /// affecting them (``KeyValueObservable/keyPathsAffectingValue(for:)``), as found by this tracker: the
    /// last few found, kept while it is recycled (it is its thread's spare: `reused(subscribing:)`), so
    /// that a re-evaluation's reads do not ask again. Per tracker, so that a read looks them up with no
    /// lock; a newly found one replaces the oldest. None are kept with caches off (``CacheSwitch``).
    var undeclaredFields: RecentRing<(type: ObjectIdentifier, field: Int)> {
        @inline(__always) _read { yield fields.guarded.undeclaredFields }
        @inline(__always) _modify { yield &fields.guarded.undeclaredFields }
    }
    /// How many answers about declared keys a tracker keeps, of each kind.
    static let answersKept = 8
    static let remembersUndeclaredFields = CacheSwitch.cachesAreOn
    /// The declared dependencies read so far: each is read once, so that declarations that form a cycle end.
    private var declaredReads: [DeclaredRead] {
        @inline(__always) _read { yield fields.guarded.declaredReads }
        @inline(__always) _modify { yield &fields.guarded.declaredReads }
    }

    // MARK: Reads, as the getters report them (``ReadRecorder``)

    override func readField<Object: KeyValueObservable>(
        _ field: Int,
        of object: Object,
        on registrar: KVORegistrar,
        wrapped: () -> AnyKeyPath
    ) {
        // (A re-evaluation reading what it read last time records nothing: `AccessTracker+ExpectedReads`.)
        switch expectedRead(of: registrar, field: field) {
        case .first: return readDeclared(affecting: wrapped, field: field, of: object, on: registrar)
        case .again: return
        case .unexpected: break
        }
        registrar.verifyStored(in: object)
        let keyPath = wrapped()
        let access = Access(registrar: registrar, slot: .field(field), wrapped: keyPath, objectType: type(of: object))
        if record(access) { readDeclared(affecting: { keyPath }, field: field, of: object, on: registrar) }
    }

    override func readCustomStorage<Object: KeyValueObservable>(
        _ keyPath: AnyKeyPath,
        of object: Object,
        on registrar: KVORegistrar
    ) {
        // (Custom storage may hold its value weakly, as a protocol-typed delegate's does.)
        noteWeakLinkRead()
        registrar.verifyStored(in: object)
        let access = Access(registrar: registrar, slot: .keyPath(keyPath), objectType: type(of: object))
        if record(access) { readDeclared(affecting: keyPath, of: object, on: registrar) }
    }

    override func readField(_ field: Int, named object: AnyObject, on registrar: KVORegistrar) {
        if expectedRead(of: registrar, field: field) != .unexpected { return }
        registrar.verifyStored(in: object)
        record(Access(registrar: registrar, slot: .field(field), objectType: type(of: object)))
    }

    /// Marks this tracker's registration, if any, as one that reads a link that may be weak.
    override func noteWeakLinkRead() {
        registration?.with { $0.noteReadsWeakLink() }
    }

    /// Records a read; true if it was not recorded before.
    ///
    /// The reads are compared in place and `access` is moved into the list: copying an `Access` retains
    /// its three references (a re-evaluation's reads spent about 300 instructions a read doing that).
    @discardableResult
    @inline(__always)
    func record(_ access: __owned Access) -> Bool {
        readCount &+= 1
        for index in accesses.indices
        where accesses[index].registrar === access.registrar && sameSlot(accesses[index].slot, access.slot) {
            return false
        }
        registration?.with { $0.subscribe(access) }
        accesses.append(access)
        return true
    }

    /// Reads what `object`'s class declares affects `keyPath` (``KeyValueObservable/keyPathsAffectingValue(for:)``),
    /// and, recursively, what affects those: wherever a property is read (at the root of an observed
    /// key path, through a chain, inside a computed property), what it declares is read with it, as
    /// Cocoa resolves `keyPathsForValuesAffectingValueForKey:`. A declared key path whose reading
    /// reports no read counts as a slot itself: its manual `willChangeValue(for:)` / `didChangeValue(for:)`
    /// then announce the change. `registrar` is `object`'s, which the caller has at hand.
    ///
    /// - Returns: Whether the class declares anything affecting `keyPath`.
    @discardableResult
    func readDeclared<Object: KeyValueObservable>(
        affecting keyPath: AnyKeyPath,
        of object: Object,
        on registrar: KVORegistrar
    ) -> Bool {
        // (Only for a registration, or a list of dependencies: probing what a key path reads, to announce a
        // change of it, is about that key path's own storage.)
        guard registration != nil || listsDependencies else { return false }
        return declaredAnswer(affecting: keyPath, of: object).with { answer in
            readDeclared(answer, of: object, on: registrar)
        }
    }

    /// `readDeclared(affecting:of:on:)` with the class's answer, borrowed (see `declaredAnswer`).
    private func readDeclared<Object: KeyValueObservable>(
        _ answer: DeclaredAnswer,
        of object: Object,
        on registrar: KVORegistrar
    ) -> Bool {
        guard !answer.declared.isEmpty else { return false }
        let id = ObjectIdentifier(object)
        // (By index: `zip` retained both arrays again. A declared key path is loaded only where it is
        // used, which for an `@Observed` property is nowhere.)
        for index in answer.declared.indices {
            // One `@Observed` property: the read its getter reports, without running the getter by key path.
            // Its own declarations are read with it unless the read is a repeat, so a cycle of them ends.
            if let field = answer.fields[index] {
                readField(field, of: object, on: registrar) { answer.declared[index] }
                continue
            }
            // Any other key path: read once per evaluation (so a cycle ends), then what its class declares.
            let affecting = answer.declared[index]
            if declaredReads.contains(where: { $0.isRead(of: id, keyPath: affecting) }) { continue }
            declaredReads.append(DeclaredRead(object: id, affecting))
            let before = readCount
            _ = object[keyPath: affecting]
            if readCount == before {
                record(Access(registrar: registrar, slot: .keyPath(affecting), objectType: type(of: object)))
            }
            readDeclared(affecting: affecting, of: object, on: registrar)
        }
        return true
    }

    /// What `object`'s class declares affecting `keyPath`: from the last few answers this tracker found
    /// (kept while it is recycled, as `undeclaredFields` are: per thread, looked up with no lock), else
    /// asked of the class and kept, replacing the oldest. None are kept with caches off.
    ///
    /// The answer is given unretained: this tracker holds it until it is cleared, which is after every
    /// read that uses it. A kept answer that a newer one replaces meanwhile (a declared key path's own
    /// declarations, read while the answer that declared it is read), and an answer not kept, are held in
    /// `heldAnswers` until then.
    private func declaredAnswer<Object: KeyValueObservable>(
        affecting keyPath: AnyKeyPath,
        of object: Object
    ) -> Unretained<DeclaredAnswer> {
        let type = ObjectIdentifier(Swift.type(of: object))
        for index in fields.guarded.declaredAnswers.elements.indices
        where fields.guarded.declaredAnswers.elements[index].answers(keyPath, type: type) {
            return Unretained(fields.guarded.declaredAnswers.elements[index])
        }
        let answer = DeclaredAnswer(affecting: keyPath, on: object)
        if !Self.remembersUndeclaredFields {
            fields.guarded.heldAnswers.append(answer)
        } else if let replaced = fields.guarded.declaredAnswers.keep(answer) {
            fields.guarded.heldAnswers.append(replaced)
        }
        return Unretained(answer)
    }

    /// `readDeclared(affecting:of:)` for a read of the `@Observed` property at `field` of `object`,
    /// whose key path `wrapped` gives: not even asked when this tracker found before that the object's
    /// class declares nothing affecting it (`declaresNothing(_:field:)`; the answer is the class's, so
    /// it is kept, as Cocoa keeps `keyPathsForValuesAffectingValueForKey:`'s).
    @inline(__always)
    func readDeclared<Object: KeyValueObservable>(
        affecting wrapped: () -> AnyKeyPath,
        field: Int,
        of object: Object,
        on registrar: KVORegistrar
    ) {
        guard registration != nil else { return }
        let type = ObjectIdentifier(Swift.type(of: object))
        if declaresNothing(type, field: field) { return }
        if !readDeclared(affecting: wrapped(), of: object, on: registrar) {
            rememberDeclaresNothing(type, field: field)
        }
    }

    /// Whether `field` of objects of the class `type` was found to have nothing declared affecting it.
    @inline(__always)
    func declaresNothing(_ type: ObjectIdentifier, field: Int) -> Bool {
        for index in undeclaredFields.elements.indices
        where undeclaredFields.elements[index].field == field && undeclaredFields.elements[index].type == type {
            return true
        }
        return false
    }

    /// Remembers that `field` of objects of the class `type` has nothing declared affecting it.
    func rememberDeclaresNothing(_ type: ObjectIdentifier, field: Int) {
        guard Self.remembersUndeclaredFields else { return }
        undeclaredFields.keep((type, field))
    }

    /// A tracker for `registration`: this thread's spare one if it has one (a re-evaluation then
    /// allocates nothing: a tracker and its array cost about 1,000 instructions to make and free),
    /// else a new one. Give it back with ``recycle()`` once its accesses are no longer used.
    static func reused(subscribing registration: SlotObserver) -> AccessTracker {
        // (The thread's key holds its context: used with no reference counting.)
        let spare = ThreadContext.withCurrent { context in
            context.spareTracker.take().map { KnownClass.cast($0, to: AccessTracker.self) }
        }
        guard let spare else { return AccessTracker(subscribing: registration) }
        spare.registration = Unretained(registration)
        return spare
    }

    /// Empties this tracker (keeping its capacity, dropping every reference it holds) and makes it this
    /// thread's spare, unless the thread has one (a nested evaluation's). (Inlined: the caller's reference
    /// then becomes the spare's, with no retain and release.)
    @inline(__always)
    func recycle() {
        clear()
        registration = nil
        ThreadContext.withCurrent { context in
            if context.spareTracker == nil { context.spareTracker = self }
        }
    }

    /// Forgets every read (keeping the capacity), for another evaluation.
    func clear() {
        // (One by one: `removeAll(keepingCapacity:)` goes through `replaceSubrange`, 300 instructions.)
        while !accesses.isEmpty { accesses.removeLast() }
        while !declaredReads.isEmpty { declaredReads.removeLast() }
        if !fields.guarded.heldAnswers.isEmpty { fields.guarded.heldAnswers.removeAll() }
        expectedCount = 0
        readCount = 0
        matching = .matched(0)
    }
}
