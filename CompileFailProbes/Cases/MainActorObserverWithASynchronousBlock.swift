// expect-error: main actor-isolated property 'title' can not be mutated from a Sendable closure
import KVOMediator

final class Document: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var title = ""
}

@MainActor final class TitleViewController {
    lazy var kvoController = KVOController(observer: self)
    var title = ""

    func show(_ document: Document) {
        kvoController.observe(document, keyPath: \.title) { viewController, _, change in
            viewController.title = change.newValue!
        }
    }
}
