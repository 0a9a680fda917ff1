import Foundation
import KVOMediator
import Testing

/// The documented recipe for a protocol-typed delegate (`weak var delegate: (any Delegate)?`), which
/// `@ObservedWeak` cannot hold: a computed property over a plain `weak var` that reports its reads and
/// announces its sets. It is observable directly and through chains; its referent's death is not
/// announced (as with Cocoa's `weak` properties), which the recipe says.
@Suite struct ProtocolDelegateRecipeTests {
    @Test func setsOfAProtocolTypedDelegateAreObservedWithOldAndNewValues() {
        let editor = DraftEditor()
        let observer = TestObserver()
        let names = Recorded<(old: String?, new: String?, keyPath: String)>()
        observer.kvoController.observe(editor, keyPath: \.delegate, options: [.old, .new]) { _, _, change in
            names.append((change.oldValue??.name, change.newValue??.name, change.keyPathName))
        }
        let first = NamedDelegate(name: "first")
        let second = NamedDelegate(name: "second")
        editor.delegate = first
        editor.delegate = second
        editor.delegate = nil
        #expect(names.values.map(\.old) == [nil, "first", "second"])
        #expect(names.values.map(\.new) == ["first", "second", nil])
        #expect(names.values.map(\.keyPath) == ["delegate", "delegate", "delegate"])
        withExtendedLifetime((first, second)) {}
    }

    @Test func aChainThroughTheDelegateFollowsItsReplacement() {
        let editor = DraftEditor()
        let observer = TestObserver()
        let names = Recorded<String?>()
        observer.kvoController.observe(editor, keyPath: \.delegate?.name, options: [.new]) { _, _, change in
            names.append(change.newValue ?? nil)
        }
        let delegate = NamedDelegate(name: "kept")
        editor.delegate = delegate
        #expect(names.values == ["kept"])
        withExtendedLifetime(delegate) {}
    }

    @Test func theReferentsDeathIsNotAnnouncedButReadsNil() {
        let editor = DraftEditor()
        let observer = TestObserver()
        let tally = Recorded<Bool>()
        observer.kvoController.observe(editor, keyPath: \.delegate) { _, _, _ in tally.append(true) }
        var delegate: NamedDelegate? = NamedDelegate(name: "brief")
        editor.delegate = delegate
        delegate = nil
        #expect(editor.delegate == nil)
        #expect(tally.values.count == 1)
    }
}
