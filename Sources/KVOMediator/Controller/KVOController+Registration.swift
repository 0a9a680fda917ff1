/// How a controller registers: it keeps the table and dedupes by key path; the dispatcher makes,
/// starts and ends the registrations.
extension KVOController {
    /// Registers a typed key path's registration, made by the caller (see `register(_:on:onError:)`).
    @usableFromInline
    func _register<Object: KeyValueObservable, Value>(_ info: TypedKVOInfo<Object, Value>, on object: Object) {
        register(info, on: object, onError: nil)
    }

    /// Registers one key path; the handler is given the observer, loaded on the delivering thread.
    func register<Object: KeyValueObservable, Value>(
        _ object: Object,
        reader: TypedKVOInfo<Object, Value>.Reader,
        keyPath: AnyKeyPath,
        stringKeyPath: String? = nil,
        options: KVOOptions,
        prepare: ((KVOInfo) -> Void)? = nil,
        onError: ((KVOError) -> Void)? = nil,
        handler: @escaping (Observer, Object, KVOChange<Value>) -> Void
    ) {
        let info = KVODispatcher.shared.makeRegistration(
            object,
            reader: reader,
            options: options,
            owner: self,
            stringKeyPath: stringKeyPath,
            box: _ObserverBlockBox(observer: _observer, block: handler),
            prepare: prepare
        )
        register(info, on: object, onError: onError)
    }

    /// Registers one key path whose handler hops elsewhere before it runs: it is given the record
    /// only, and loads the observer itself where it runs (never on the changing thread).
    func register<Object: KeyValueObservable, Value>(
        _ object: Object,
        reader: TypedKVOInfo<Object, Value>.Reader,
        keyPath: AnyKeyPath,
        options: KVOOptions,
        prepare: @escaping (KVOInfo) -> Void,
        handler: @escaping (KVOChange<Value>) -> Void
    ) {
        let info = KVODispatcher.shared.makeRegistration(
            object,
            reader: reader,
            options: options,
            owner: self,
            box: _HandlerBox { (_: Object, change: KVOChange<Value>) in handler(change) },
            prepare: prepare
        )
        register(info, on: object, onError: nil)
    }

    /// Starts a registration unless this controller already observes its key path on `object` (or
    /// another thread is registering it right now); otherwise cancels it.
    func register<Object: KeyValueObservable, Value>(
        _ info: TypedKVOInfo<Object, Value>,
        on object: Object,
        onError: ((KVOError) -> Void)?
    ) {
        // An observer already gone could never be called: register nothing, and say why.
        guard _observer.object != nil else {
            KVODispatcher.shared.end(info)
            let name =
                info.stringKeyPath ?? (info.keyPath as? PartialKeyPath<Object>).flatMap { namePath(of: $0, on: object) }
                ?? info.keyPathName
            (onError ?? errorHandler)(.observerGone(keyPath: name, type: Object.self, observerType: Observer.self))
            return
        }
        let id = ObjectIdentifier(object)
        let keyPath = info.keyPath
        let stringKeyPath = info.stringKeyPath
        // One lock section: a key path already observed here, or being registered by another thread,
        // is ignored; otherwise the registration takes its place before it starts.
        // (With the registrations of the other form, string or typed, if there are any.)
        let retainsObserved = retainsObserved
        let (observed, otherForm): (KVOInfo?, InlineList<KVOInfo>) = state.withLock { state in
            if let existing = state.table.registration(id, keyPath: keyPath) { return (existing, InlineList()) }
            var otherForm = InlineList<KVOInfo>()
            if state.table.containsOtherForm(id, isString: stringKeyPath != nil) {
                otherForm = state.table.infos(of: id)
                otherForm.removeAll { ($0.stringKeyPath == nil) == (stringKeyPath == nil) }
            }
            state.table.insert(info, for: id)
            if stringKeyPath != nil { state.hasObservedStrings = true }
            if retainsObserved, state.retainedObjects[id] == nil { state.retainedObjects[id] = object }
            return (nil, otherForm)
        }
        if let observed {
            #if DEBUG
            reportIgnored(info, on: object, keeping: observed)
            #endif
            KVODispatcher.shared.end(info)
            return
        }
        // The string and typed forms of one chain are one registration: the first one wins. Names are
        // found outside the lock (finding them may load, and so release, registrars), and only when
        // both forms occur.
        func winsOverTheOtherForm() -> Bool {
            guard !otherForm.isEmpty, let namePath = info.namePath,
                otherForm.contains(where: { $0.namePath == namePath })
            else { return true }
            remove(from: object) { $0 === info }
            return false
        }
        do {
            if info.options.contains(.initial) {
                try startDeliveringInitial(info, on: object, ifKept: winsOverTheOtherForm)
            } else {
                try KVODispatcher.shared.start(info, on: object)
                if !otherForm.isEmpty { _ = winsOverTheOtherForm() }
            }
        } catch {
            remove(from: object) { $0 === info }
            (onError ?? errorHandler)(error)
        }
    }

    #if DEBUG
    /// Reports an `observe` ignored because this controller observes its key path of `object` already,
    /// when the registration that stays (`kept`) was made elsewhere: another call's options and callback
    /// are dropped with no other sign. One call made again (re-observing in `viewWillAppear`, say) says
    /// nothing. (Debug builds, as FBKVOController ignores it silently.) Named from the registration that
    /// stays, from what it reads: the object is not read, as an `observe` of a key path observed already
    /// does not read it (another thread may be changing it).
    private func reportIgnored<Object: KeyValueObservable, Value>(
        _ info: TypedKVOInfo<Object, Value>,
        on object: Object,
        keeping kept: KVOInfo
    ) {
        guard kept.site != info.site, let keptAt = _RegistrationSites.site(kept.site),
            let ignoredAt = _RegistrationSites.site(info.site)
        else { return }
        let name = info.stringKeyPath ?? kept.namePath ?? kept.unchainedName()
        errorHandler(
            .alreadyObserved(
                keyPath: name,
                type: Object.self,
                observerType: Observer.self,
                keptAt: keptAt.place,
                ignoredAt: ignoredAt.place
            )
        )
    }
    #endif

    /// Starts a registration asking for `.initial`, and delivers that record if `keeps()`.
    ///
    /// The value is delivered from the callback the start ends with, which is its last step (nothing is
    /// locked then): kept in a variable instead, it cost a look-up of `Value?`'s metadata, unspecialised here.
    @inline(never)
    private func startDeliveringInitial<Object: KeyValueObservable, Value>(
        _ info: TypedKVOInfo<Object, Value>,
        on object: Object,
        ifKept keeps: () -> Bool
    ) throws(KVOError) {
        try KVODispatcher.shared.start(info, on: object) { initial in
            if keeps() { info.deliverInitial(initial, to: object) }
        }
    }
}

/// `<Circle: 0x…>`, as FBKVOController prints objects.
func describe(_ object: AnyObject) -> String {
    "<\(type(of: object)): \(hexAddress(of: object))>"
}
