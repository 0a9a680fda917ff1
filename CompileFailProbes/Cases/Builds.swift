// expect: builds
// The right shapes of everything the other probes reject: this one must compile (with no warning), so that
// a probe package that cannot build at all is not taken for one that rejects the other programs.
import Dispatch
import Foundation
import KVOMediator

final class Document: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var title = ""
}

/// Main-actor isolated, so Sendable: main-actor delivery may hand it over.
@MainActor final class ViewModel {
    lazy var kvoController = KVOController(observer: self)
    var title = ""

    func show(_ document: Document) {
        kvoController.observe(document, keyPath: \.title, delivery: .mainActor) { viewModel, change in
            viewModel.title = change.newValue ?? ""
        }
        kvoController.observe(document, keyPath: \.title) { _, _, change in
            print("synchronously:", change.newValue ?? "")
        }
    }
}

/// Sendable by its own guarantee (its state behind a lock): queue delivery may hand it over.
final class Renderer: @unchecked Sendable {
    lazy var kvoController = KVOController(observer: self)
    let queue = DispatchQueue(label: "renderer")
    private let lock = NSLock()
    private var frames: [String] = []

    func track(_ document: Document) throws {
        kvoController.observe(document, keyPath: \.title, delivery: .queue(queue)) { renderer, change in
            renderer.draw(change.newValue ?? "")
        }
        try kvoController.observe(document, keyPath: "title") { renderer, _, change in
            renderer.draw(change.newValue as? String ?? "")
        }
    }

    func draw(_ frame: String) {
        lock.withLock { frames.append(frame) }
    }
}

/// FBKVOController's two-argument action: the change and the object.
final class Outline {
    lazy var kvoController = KVOController(observer: self)

    func watch(_ documents: [Document]) {
        for document in documents {
            kvoController.observe(document, keyPath: \.title, action: Outline.titleDidChange)
        }
    }

    func titleDidChange(_ change: KVOChange<String>, of document: Document) {
        print(ObjectIdentifier(document), change.newValue ?? "")
    }
}
