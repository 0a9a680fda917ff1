// expect-error: type 'ViewModel' does not conform to the 'Sendable' protocol
// `delivery: .mainActor` hands the observer to the main actor from whichever thread changes the object:
// an observer that is neither main-actor isolated nor Sendable may not cross.
import KVOMediator

final class Profile: KeyValueObservable {
    let kvoRegistrar = KVORegistrar()
    @Observed var name = ""
}

final class ViewModel {
    lazy var kvoController = KVOController(observer: self)
    var title = ""

    func show(_ profile: Profile) {
        kvoController.observe(profile, keyPath: \.name, delivery: .mainActor) { viewModel, change in
            viewModel.title = change.newValue ?? ""
        }
    }
}
