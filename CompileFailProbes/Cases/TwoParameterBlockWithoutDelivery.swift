// expect-error: add `delivery: .mainActor` or `delivery: .queue(q)`; to be called synchronously on the changing thread, take three parameters: { observer, object, change in }
// A block of (observer, change) is the shape of the forms that deliver elsewhere; without `delivery:` the
// compiler used to answer with the action form's "expects 1 argument, but 2 were used".
import KVOMediator

final class Document: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var title = ""
}

@MainActor final class ViewModel {
    lazy var kvoController = KVOController(observer: self)
    var title = ""

    func show(_ document: Document) {
        kvoController.observe(document, keyPath: \.title) { viewModel, change in
            print(viewModel, change)
        }
    }
}
