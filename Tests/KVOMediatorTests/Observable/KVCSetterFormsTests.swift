import KVOMediator
import Testing

/// The two forms of `setValue(_:atKeyPath:)`: a value of a static type sets exactly what the same value
/// passed as `Any?` sets, with the same records and errors (and, for a value of the declared type, what
/// a typed set stores).
@Suite struct KVCSetterFormsTests {
    /// What a set did: the properties' values afterwards, described, or the error's reason.
    private enum Outcome: Equatable {
        case set(String)
        case failed(KVOError.Reason)
    }

    /// Sets `value` at `path` of a new `Account` (every property set to something first, so that a set
    /// to nil shows) in the form Swift picks for its static type, and `boxed` (the same value, converted
    /// to `Any?` where its type is known) in Cocoa's form, and returns both outcomes.
    private func bothForms<Given>(_ value: Given, _ boxed: Any?, at path: String) -> (typed: Outcome, any: Outcome) {
        func outcome(_ set: (Account) throws(KVOError) -> Void) -> Outcome {
            let account = Account()
            (account.email, account.balance, account.logins) = ("before", 1, 1)
            do throws(KVOError) {
                try set(account)
            } catch {
                return .failed(error.reason)
            }
            let companion = account.companion.map { String(describing: type(of: $0)) } ?? "nil"
            return .set("\(account.email ?? "nil") \(account.balance) \(account.logins) \(companion)")
        }
        let typed = outcome { account throws(KVOError) in try account.setValue(value, atKeyPath: path) }
        let any = outcome { account throws(KVOError) in try account.setValue(boxed, atKeyPath: path) }
        return (typed, any)
    }

    @Test func everyKindOfValueSetsAndFailsAlikeInBothForms() {
        let none: String? = nil
        let nested: String?? = .some(nil)
        let cases: [(typed: Outcome, any: Outcome)] = [
            bothForms(2.5, 2.5, at: "balance"),  // the declared type: stored as it is
            bothForms(5, 5, at: "balance"),  // an Int is not a Double
            bothForms(7, 7, at: "logins"),
            bothForms(Optional(7), Optional(7), at: "logins"),  // an optional gives its value
            bothForms(Optional<Int>.none, Optional<Int>.none, at: "logins"),  // nil sets no non-optional property
            bothForms("ada@example.com", "ada@example.com", at: "email"),
            bothForms(Optional("ada@example.com"), Optional("ada@example.com"), at: "email"),
            bothForms(none, none, at: "email"),
            bothForms(nested, nested as Any?, at: "email"),  // a String?? holding nil is nil: not a String
            bothForms(GuideDog(), GuideDog(), at: "companion"),  // a subclass instance sets its base class's type
            bothForms(Person(), Person(), at: "companion"),
            bothForms(3 as Any, 3 as Any, at: "logins"),
            bothForms(3, 3, at: "missing"),
            bothForms(3, 3, at: "companion.name"),  // past a nil link
        ]
        for (typed, any) in cases { #expect(typed == any) }
        let expected: [Outcome] = [
            .set("before 2.5 1 nil"), .failed(.typeMismatch(expected: "Double", actual: "Int")),
            .set("before 1.0 7 nil"), .set("before 1.0 7 nil"), .failed(.typeMismatch(expected: "Int", actual: "nil")),
            .set("ada@example.com 1.0 1 nil"), .set("ada@example.com 1.0 1 nil"), .set("nil 1.0 1 nil"),
            .set("nil 1.0 1 nil"), .set("before 1.0 1 GuideDog"),
            .failed(.typeMismatch(expected: "Optional<Companion>", actual: "Person")), .set("before 1.0 3 nil"),
            .failed(.unknownKey("missing")), .failed(.nilLink("companion")),
        ]
        #expect(cases.map(\.typed) == expected)
    }

    @Test func aValueOfTheDeclaredTypeDeliversTheRecordsOfATypedSet() throws {
        let account = Account()
        let observer = TestObserver()
        let records = Recorder<Double>()
        observer.kvoController.observe(account, keyPath: \.balance, options: [.old, .new, .prior]) {
            records.append($2)
        }
        try account.setValue(1.5, atKeyPath: "balance")
        try account.setValue(2.5 as Any?, atKeyPath: "balance")
        account.balance = 3.5
        let expected: [KVOChange<Double>] = [
            change(\Account.balance, old: 0, prior: true), change(\Account.balance, old: 0, new: 1.5),
            change(\Account.balance, old: 1.5, prior: true), change(\Account.balance, old: 1.5, new: 2.5),
            change(\Account.balance, old: 2.5, prior: true), change(\Account.balance, old: 2.5, new: 3.5),
        ]
        #expect(records.changes == expected)
    }

    @Test func aKeyPathTheClassNamesALinkAndAWeakPropertyAreSetInBothForms() throws {
        let parcel = Parcel()
        try parcel.setValue("card", atKeyPath: "note")  // through `keyPath(forKey:)`
        #expect(parcel.contents as? String == "card")
        try parcel.setValue("tag" as Any?, atKeyPath: "note")
        #expect(parcel.contents as? String == "tag")

        let account = Account()
        account.companion = GuideDog()
        try account.setValue(3, atKeyPath: "companion.tricks")
        #expect((account.companion as? GuideDog)?.tricks == 3)
        try account.setValue(4 as Any?, atKeyPath: "companion.tricks")
        #expect((account.companion as? GuideDog)?.tricks == 4)

        let console = Console()
        let agent = Agent("a1")
        try console.setValue(agent, atKeyPath: "agent")
        #expect(console.agent === agent)
        try console.setValue(nil, atKeyPath: "agent")
        #expect(console.agent == nil)
        try console.setValue(Optional(agent), atKeyPath: "backup")
        #expect(console.backup === agent)
        withExtendedLifetime(agent) {}
    }

    @Test func nilSetsANestedOptionalToItsOutermostNilAsATypedSetDoes() throws {
        func isOuterNil(_ value: Int??) -> Bool { if case .none = value { true } else { false } }
        let typed = Layers()
        typed.nested = nil
        #expect(isOuterNil(typed.nested))
        let byNil = Layers()
        try byNil.setValue(nil, atKeyPath: "nested")
        #expect(isOuterNil(byNil.nested))
        let none: Int?? = nil
        let byValue = Layers()
        try byValue.setValue(none, atKeyPath: "nested")
        #expect(isOuterNil(byValue.nested))
        // A nil one level in is a value of `Int??`: kept as it is by both forms.
        let innerNil: Int?? = .some(nil)
        try byValue.setValue(innerNil, atKeyPath: "nested")
        try byNil.setValue(innerNil as Any?, atKeyPath: "nested")
        for layers in [byValue, byNil] { #expect(!isOuterNil(layers.nested) && layers.nested! == nil) }
    }

    @Test func anAnyOptionalPropertyTakesAValueOrNilInBothForms() throws {
        let layers = Layers()
        try layers.setValue(3, atKeyPath: "anything")
        #expect(layers.anything as? Int == 3)
        try layers.setValue(nil, atKeyPath: "anything")
        #expect(layers.anything == nil)
        let text: Any? = "text"
        try layers.setValue(text, atKeyPath: "anything")
        #expect(layers.anything as? String == "text")
        let number: Int? = 4
        try layers.setValue(number, atKeyPath: "anything")
        #expect(layers.anything as? Int == 4)
    }

    @Test func anOptionalExistentialKeepsAValueHoldingANilOptionalOnlyWhenGivenAsItsOwnType() throws {
        // The one documented difference: in `Any?`, the cast looks through the box to the nil inside.
        let holdingNil: (any Hashable)? = .some(Int?.none as any Hashable)
        let typed = Layers()
        try typed.setValue(holdingNil, atKeyPath: "key")
        #expect(typed.key != nil)
        let boxed = Layers()
        try boxed.setValue(holdingNil as Any?, atKeyPath: "key")
        #expect(boxed.key == nil)
        try boxed.setValue(7 as any Hashable, atKeyPath: "key")
        #expect(boxed.key as? Int == 7)
    }

    /// Each type a set by name stores while observed delivers the records of a typed set, whichever way
    /// the library stores it (the commonest types through a setter specialised for each, any other
    /// through the generic one), and a property announced by hand is only stored.
    @Test func everyTypeSetByNameWhileObservedDeliversTheRecordsOfATypedSet() throws {
        func records<Value: Equatable & Sendable>(
            _ keyPath: ReferenceWritableKeyPath<TypedReadings, Value>,
            named name: String,
            setting first: Value,
            then second: Value
        ) throws -> (got: [KVOChange<Value>], expected: [KVOChange<Value>]) {
            let gauge = TypedReadings()
            let start = gauge[keyPath: keyPath]
            let observer = TestObserver()
            let recorder = Recorder<Value>()
            observer.kvoController.observe(gauge, keyPath: keyPath, options: [.old, .new, .prior]) {
                recorder.append($2)
            }
            try gauge.setValue(first, atKeyPath: name)
            try gauge.setValue(second as Any?, atKeyPath: name)
            #expect(gauge[keyPath: keyPath] == second)
            let expected: [KVOChange<Value>] = [
                change(keyPath, old: start, prior: true), change(keyPath, old: start, new: first),
                change(keyPath, old: first, prior: true), change(keyPath, old: first, new: second),
            ]
            return (recorder.changes, expected)
        }
        let count = try records(\.count, named: "count", setting: 1, then: 2)
        #expect(count.got == count.expected)
        let level = try records(\.level, named: "level", setting: 0.5, then: -1)
        #expect(level.got == level.expected)
        let on = try records(\.on, named: "on", setting: true, then: false)
        #expect(on.got == on.expected)
        let label = try records(\.label, named: "label", setting: "a", then: String(repeating: "long ", count: 9))
        #expect(label.got == label.expected)
        let note = try records(\.note, named: "note", setting: "n", then: nil)
        #expect(note.got == note.expected)
        let ratio = try records(\.ratio, named: "ratio", setting: 0.25, then: 4)
        #expect(ratio.got == ratio.expected)
        let corner = try records(\.corner, named: "corner", setting: .init(x: 1, y: 2), then: .init(x: 3, y: 4))
        #expect(corner.got == corner.expected)

        let gauge = TypedReadings()
        let observer = TestObserver()
        let quiet = Recorder<Int>()
        observer.kvoController.observe(gauge, keyPath: \.quiet, options: [.old, .new]) { quiet.append($2) }
        try gauge.setValue(5, atKeyPath: "quiet")
        #expect(gauge.quiet == 5)
        #expect(quiet.changes.isEmpty)
    }

    /// A subclass's property and its base class's, where the base class holds the registrar, are set by
    /// name while observed, with a typed set's records.
    @Test func propertiesOfASubclassAndOfItsBaseAreSetByNameWhileObserved() throws {
        let reading = LabelledReading()
        let observer = TestObserver()
        let counts = Recorder<Int>()
        let labels = Recorder<String>()
        observer.kvoController.observe(reading, keyPath: \.count, options: [.old, .new]) { counts.append($2) }
        observer.kvoController.observe(reading, keyPath: \.caption, options: [.old, .new]) { labels.append($2) }
        try reading.setValue(3, atKeyPath: "count")
        try reading.setValue("three", atKeyPath: "caption")
        #expect(counts.changes == [change(\LabelledReading.count, old: 0, new: 3)])
        #expect(labels.changes == [change(\LabelledReading.caption, old: "", new: "three")])
    }

    /// A subclass that overrides a `var kvoRegistrar` with another registrar is announced through the one
    /// its getter gives, as its typed setter announces, not through the base class's stored one.
    @Test func aSetByNameAnnouncesThroughTheRegistrarTheGetterGivesWhenASubclassOverridesIt() throws {
        let panel = RedirectedPanel()
        let observer = TestObserver()
        let levels = Recorder<Int>()
        observer.kvoController.observe(panel, keyPath: \.level, options: [.old, .new]) { levels.append($2) }
        try panel.setValue(1, atKeyPath: "level")
        panel.level = 2
        try panel.setValue(3, atKeyPath: "level")
        #expect(
            levels.changes == [
                change(\RedirectedPanel.level, old: 0, new: 1), change(\RedirectedPanel.level, old: 1, new: 2),
                change(\RedirectedPanel.level, old: 2, new: 3),
            ]
        )
    }

    /// A callback that replaces a `var kvoRegistrar` while a set by name announces: the set finishes on the
    /// registrar it began with, which it holds until then (AddressSanitizer checks it is not freed first).
    @Test func aCallbackReplacingAVarRegistrarDuringASetByNameLeavesTheSetWhole() throws {
        let panel = PanelWithVarRegistrar()
        let observer = TestObserver()
        let levels = Recorder<Int>()
        observer.kvoController.observe(panel, keyPath: \.level, options: [.old, .new, .prior]) { _, panel, change in
            levels.append(change)
            if change.isPrior { panel.kvoRegistrar = KVORegistrar() }
        }
        try panel.setValue(1, atKeyPath: "level")
        #expect(panel.level == 1)
        #expect(levels.changes.first == change(\PanelWithVarRegistrar.level, old: 0, prior: true))
    }
}

/// A subclass whose base class (`TypedReadings`) holds the registrar.
private final class LabelledReading: TypedReadings, @unchecked Sendable {  // used by one thread at a time
    @Observed var caption = ""
}

/// A property of each type `everyTypeSetByNameWhileObservedDeliversTheRecordsOfATypedSet` sets by name.
private class TypedReadings: KeyValueObservable, @unchecked Sendable {  // used by one thread at a time
    struct Corner: Equatable, Sendable {
        var x = 0
        var y = 0
    }

    let kvoRegistrar = KVORegistrar()
    @Observed var count = 0
    @Observed var level = 0.0
    @Observed var on = false
    @Observed var label = ""
    @Observed var note: String? = "before"
    @Observed var ratio: Float = 1
    @Observed var corner = Corner()
    @Observed(automaticallyNotifies: false) var quiet = 0
}

/// A registrar declared `var`, which a callback may replace.
private class PanelWithVarRegistrar: KeyValueObservable, @unchecked Sendable {  // used by one thread at a time
    var kvoRegistrar = KVORegistrar()
    @Observed var level = 0
}

/// Announces through another registrar than the one its base class stores.
private final class RedirectedPanel: PanelWithVarRegistrar, @unchecked Sendable {  // used by one thread at a time
    let other = KVORegistrar()
    override var kvoRegistrar: KVORegistrar {
        get { other }
        set {}
    }
}
