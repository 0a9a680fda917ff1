import Foundation
import KVOMediator

/// A document as a new user writes one: a title, a text whose `didSet` updates a derived count, and the
/// recommended shape of that count (a computed property, which is tracked). Records what
/// `handleKVOError(_:)` receives.
final class Draft: KeyValueObservable, @unchecked Sendable {  // one thread at a time in tests
    let kvoRegistrar = KVORegistrar()
    @Observed var title = ""
    /// Derived state kept up to date by `text`'s `didSet`: observers of `text` run before it.
    @Observed var storedWordCount = 0
    @Observed var text = "" {
        didSet { storedWordCount = Self.words(in: text) }
    }
    /// The same count, computed: observers of `text` and of this read it up to date.
    var wordCount: Int { Self.words(in: text) }
    /// What `handleKVOError(_:)` received.
    let errors = Recorded<KVOError>()

    func handleKVOError(_ error: KVOError) {
        errors.append(error)
    }

    static func words(in text: String) -> Int {
        text.split(whereSeparator: \.isWhitespace).count
    }
}

/// An observer of several drafts that takes FBKVOController's two-argument action: the change and the object.
final class DraftOutline {
    lazy var kvoController = KVOController(observer: self)
    let titles = Recorded<(title: String?, draft: ObjectIdentifier)>()

    func titleDidChange(_ change: KVOChange<String>, of draft: Draft) {
        titles.append((change.newValue, ObjectIdentifier(draft)))
    }
}

/// Holds a controller it can let go of while it lives (the controller is not its own property's lazy
/// one, so that a test can drop it).
final class ControllerHolder {
    var controller: KVOController<ControllerHolder>?
    let errors = Recorded<KVOError>()

    /// Makes a controller that records its errors.
    func makeController() -> KVOController<ControllerHolder> {
        let controller = KVOController(observer: self)
        let errors = errors
        controller.errorHandler = { errors.append($0) }
        return controller
    }
}

/// The recipe for a protocol-typed delegate, which `@ObservedWeak` cannot hold (its referent must be a
/// `KeyValueObservable` class): a plain `weak var` behind a computed property that reports its reads and
/// announces its sets.
protocol DraftDelegate: AnyObject {
    var name: String { get }
}

final class DraftEditor: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    private weak var storedDelegate: (any DraftDelegate)?

    var delegate: (any DraftDelegate)? {
        get {
            accessValue(for: \.delegate)
            return storedDelegate
        }
        set {
            withChange(of: \.delegate) { storedDelegate = newValue }
        }
    }

    /// Observers of a computed property can only ask for its value: give it a name for records.
    static func keyPathName(for keyPath: AnyKeyPath) -> String? {
        keyPath == \DraftEditor.delegate ? "delegate" : nil
    }
}

final class NamedDelegate: DraftDelegate {
    let name: String

    init(name: String) {
        self.name = name
    }
}
