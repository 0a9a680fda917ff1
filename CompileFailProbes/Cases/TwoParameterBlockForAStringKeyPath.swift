// expect-error: a block of (observer, change) is not a form of string key paths: take three parameters, { observer, object, change in }
import KVOMediator

final class Document: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var title = ""
}

final class Watcher {
    lazy var kvoController = KVOController(observer: self)

    func watch(_ document: Document) throws {
        try kvoController.observe(document, keyPath: "title") { watcher, change in
            print(watcher, change)
        }
    }
}
