import KVOMediator
import Testing

/// The two forms of `setValue(_:atKeyPath:)`: a value of a static type sets exactly what the same value
/// passed as `Any?` sets, with the same records and errors.
@Suite struct KVCSetterFormsTests {
    /// What a set did: the properties' values afterwards, described, or the error's reason.
    private enum Outcome: Equatable {
        case set(String)
        case failed(KVOError.Reason)
    }

    /// Sets `value` at `path` of a new `Account` in the form Swift picks for its static type, and `boxed`
    /// (the same value, converted to `Any?` where its type is known) in Cocoa's form, and returns both
    /// outcomes.
    private func bothForms<Given>(_ value: Given, _ boxed: Any?, at path: String) -> (typed: Outcome, any: Outcome) {
        func outcome(_ set: (Account) throws(KVOError) -> Void) -> Outcome {
            let account = Account()
            do throws(KVOError) {
                try set(account)
            } catch {
                return .failed(error.reason)
            }
            let companion = account.companion.map { String(describing: type(of: $0)) } ?? "nil"
            return .set("\(String(describing: account.email)) \(account.balance) \(account.logins) \(companion)")
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
            bothForms(nested, nested as Any?, at: "email"),
            bothForms(GuideDog(), GuideDog(), at: "companion"),  // a subclass instance sets its base class's type
            bothForms(Person(), Person(), at: "companion"),
            bothForms(3 as Any, 3 as Any, at: "logins"),
            bothForms(3, 3, at: "missing"),
            bothForms(3, 3, at: "companion.name"),  // past a nil link
        ]
        for (typed, any) in cases { #expect(typed == any) }
        #expect(cases[0].typed == .set("nil 2.5 0 nil"))
        #expect(cases[1].typed == .failed(.typeMismatch(expected: "Double", actual: "Int")))
        #expect(cases[3].typed == .set("nil 0.0 7 nil"))
        #expect(cases[4].typed == .failed(.typeMismatch(expected: "Int", actual: "nil")))
        #expect(cases[7].typed == .set("nil 0.0 0 nil"))
        #expect(cases[9].typed == .set("nil 0.0 0 GuideDog"))
        #expect(cases[12].typed == .failed(.unknownKey("missing")))
        #expect(cases[13].typed == .failed(.nilLink("companion")))
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
        let expected: [KVOChange<Double>] = [
            change(\Account.balance, old: 0, prior: true), change(\Account.balance, old: 0, new: 1.5),
            change(\Account.balance, old: 1.5, prior: true), change(\Account.balance, old: 1.5, new: 2.5),
        ]
        #expect(records.changes == expected)
    }

    @Test func aPropertyDeclaredAsAnExistentialTakesAValueOfThatExistentialType() throws {
        let parcel = Parcel()
        let contents: Any = 3
        try parcel.setValue(contents, atKeyPath: "contents")
        #expect(parcel.contents as? Int == 3)
        let label: (any CustomStringConvertible)? = 4
        try parcel.setValue(label, atKeyPath: "label")
        #expect(parcel.label?.description == "4")
        let noLabel: (any CustomStringConvertible)? = nil
        try parcel.setValue(noLabel, atKeyPath: "label")
        #expect(parcel.label == nil)
    }
}
