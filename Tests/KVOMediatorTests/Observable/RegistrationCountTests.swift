import KVOMediator
import Testing

/// `KVORegistrar.registrationCount`: the registrations that depend on an object, each once, for leak tests.
@Suite struct RegistrationCountTests {
    @Test func eachRegistrationCountsOnceHoweverManyPropertiesItReads() {
        let account = Ledger()
        let observer = TestObserver()
        #expect(account.kvoRegistrar.registrationCount == 0)
        observer.kvoController.observe(account, keyPath: \.balance) { _, _, _ in }
        observer.kvoController.observe(account, keyPath: \.available) { _, _, _ in }  // balance and pending
        #expect(account.kvoRegistrar.registrationCount == 2)
        observer.kvoController.unobserve(account, keyPath: \.available)
        #expect(account.kvoRegistrar.registrationCount == 1)
    }

    @Test func aChainCountsOnEveryObjectItReads() {
        let owner = LedgerOwner("Ada")
        let account = Ledger()
        account.owner = owner
        let observer = TestObserver()
        observer.kvoController.observe(account, keyPath: \.owner?.name) { _, _, _ in }
        #expect(account.kvoRegistrar.registrationCount == 1)
        #expect(owner.kvoRegistrar.registrationCount == 1)
        account.owner = nil
        #expect(owner.kvoRegistrar.registrationCount == 0)
    }

    @Test func itIsZeroOnceTheObserverIsGone() {
        let account = Ledger()
        var observer: TestObserver? = TestObserver()
        observer?.kvoController.observe(account, keyPath: \.balance) { _, _, _ in }
        let token = try? account.observe(\.pending) { _, _ in }
        #expect(account.kvoRegistrar.registrationCount == 2)
        observer = nil
        #expect(account.kvoRegistrar.registrationCount == 1)
        token?.invalidate()
        #expect(account.kvoRegistrar.registrationCount == 0)
    }
}
