/// The check that an object's `kvoRegistrar` is stored, not computed.
extension KVORegistrar {
    /// Stops the program unless this registrar is `object`'s one stored registrar: a computed
    /// `kvoRegistrar` (the compiler's "add stubs" fix-it) makes a new one on each read, which nothing
    /// could announce through, and which registrations would point at after it is freed. Checked at
    /// the first registration or tracked read that involves it; afterwards one atomic load.
    @inline(__always)
    func verifyStored(in object: AnyObject) {
        if !storedVerified.load(ordering: .relaxed) { verifyStoredOnce(in: object) }
    }

    @inline(never)
    private func verifyStoredOnce(in object: AnyObject) {
        guard let observable = object as? any KeyValueObservable else { return }
        let again = observable.kvoRegistrar
        guard again === self else {
            let typeName = String(describing: type(of: object))
            fatalError(
                "KVOMediator: \(typeName).kvoRegistrar returned a different KVORegistrar each time it was read, so "
                    + "no change of a \(typeName) could ever be announced. It must be one registrar stored in the "
                    + "object: declare it as `let kvoRegistrar = KVORegistrar()`, not as a computed property such as "
                    + "`var kvoRegistrar: KVORegistrar { KVORegistrar() }`."
            )
        }
        storedVerified.store(true, ordering: .relaxed)
    }
}
