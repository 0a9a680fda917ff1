// expect-error: type 'VM' does not conform to the 'Sendable' protocol
// `delivery: .queue(q)` hands the observer to q's thread while the observing thread still uses it: the
// issue's race, which ThreadSanitizer reported when this compiled.
import Dispatch
import KVOMediator

final class Document: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var title = ""
}

final class VM {
    lazy var kvo = KVOController(observer: self)
    var count = 0
}

func race() {
    let q = DispatchQueue(label: "q")
    let vm = VM()
    let doc = Document()
    vm.kvo.observe(doc, keyPath: \.title, delivery: .queue(q)) { vm, change in vm.count += 1 }
    for i in 0..<2000 {
        doc.title = "x\(i)"
        vm.count += 100
    }
    q.sync {}
}
