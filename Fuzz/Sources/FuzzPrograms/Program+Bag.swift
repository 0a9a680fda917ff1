import FuzzSupport
import KVOMediator

extension Program {
    /// Stores a token in the bag, invalidates every token in it, or releases it (which invalidates
    /// them too); a token is ended by the bag whether or not a slot still holds it.
    func changeBag(_ change: Operation.BagChange, token slot: Int) {
        switch change {
        case .store:
            guard let token = tokens[slot] else { return }
            let bag = self.bag ?? makeBag()
            token.store(in: bag)
            bagCount += 1
            for registration in registrations where registration.token === token {
                registration.isInBag = true
            }
        case .invalidateAll:
            guard let bag else { return }
            bag.invalidateAll()
            endBaggedTokens()
        case .release:
            guard let bag else { return }
            released.watch(bag, "the released bag")
            self.bag = nil
            endBaggedTokens()
        }
    }

    private func makeBag() -> KVOObservationBag {
        let bag = KVOObservationBag()
        lifetimes.watch(bag, "the bag")
        self.bag = bag
        return bag
    }

    /// The bag is empty now, and every token it held is invalid; those no slot holds are gone.
    private func endBaggedTokens() {
        bagCount = 0
        for registration in registrations where registration.isInBag {
            registration.isInBag = false
            registration.state = .ended
        }
    }
}
