/// How a registration was made: the front end and form of its `observe` call, and where it delivers.
@usableFromInline
enum _RegistrationForm: UInt8, Sendable {
    case block, action, keyPaths, delegate, string, queue, queueCoalescing, mainActor, mainActorCoalescing
    case token, valueStream, changeStream

    /// The form, and where its callbacks run.
    var description: String {
        switch self {
        case .block: "block, on the changing thread"
        case .action: "action, on the changing thread"
        case .keyPaths: "keyPaths block, on the changing thread"
        case .delegate: "observeValue(forKeyPath:), on the changing thread"
        case .string: "string key path, on the changing thread"
        case .queue: "block, on a queue"
        case .queueCoalescing: "block, on a queue, coalescing"
        case .mainActor: "block, on the main actor"
        case .mainActorCoalescing: "block, on the main actor, coalescing"
        case .token: "token, on the changing thread"
        case .valueStream: "values stream"
        case .changeStream: "changes stream"
        }
    }
}

/// Where a registration was made: its `observe` call's `#fileID` and `#line`, its form, and the type
/// of the observer it calls (a controller's; none for tokens and streams).
struct RegistrationSite: CustomStringConvertible {
    let file: StaticString
    let line: UInt
    let form: _RegistrationForm
    let observerType: Any.Type?

    /// `"ProfileView, made at App/ProfileView.swift:12 (block, on the changing thread)"`.
    var description: String {
        let observer = observerType.map { "\($0), " } ?? ""
        return "\(observer)made at \(file):\(line) (\(form.description))"
    }

    /// `"App/ProfileView.swift:12"`.
    var place: String { "\(file):\(line)" }
}

/// The places registrations are made, each kept once: a registration holds its site's number (two
/// bytes, where the site itself is four words), and the `observe` call that makes it says which, for the
/// registrations it makes on its thread (`enter`, `leave`). Call sites are the program's own `observe`
/// calls, so the table stays small; past its capacity a site is not kept (number 0: unknown).
@usableFromInline
enum _RegistrationSites {
    /// A site's identity, in words: the address of its file's literal (the same literal is one address),
    /// its line, its form and its observer type's address (0: none).
    private struct Key: Hashable {
        let file: UInt
        let line: UInt
        let form: UInt8
        let observer: UInt

        init(_ site: RegistrationSite) {
            // (A literal of one scalar has no pointer; its scalar, tagged, names it.)
            file =
                site.file.hasPointerRepresentation
                ? UInt(bitPattern: site.file.utf8Start) : UInt(site.file.unicodeScalar.value) | 1 << 63
            line = site.line
            form = site.form.rawValue
            observer = site.observerType.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? 0
        }
    }

    private static let lock = Lock()
    nonisolated(unsafe) private static var sites: [RegistrationSite] = []  // guarded by `lock`; number i + 1
    nonisolated(unsafe) private static var numbers: [Key: UInt16] = [:]  // guarded by `lock`

    /// Makes the registrations this thread makes until `leave` come from this site; returns the one to
    /// put back (an `observe` inside an `.initial` callback nests).
    @usableFromInline
    static func enter(_ file: StaticString, _ line: UInt, _ form: _RegistrationForm, observer: Any.Type?) -> UInt16 {
        let site = RegistrationSite(file: file, line: line, form: form, observerType: observer)
        let key = Key(site)
        return ThreadContext.withCurrent { context in
            let cached = context.lastSite
            let number: UInt16
            if cached.file == key.file, cached.line == key.line, cached.observer == key.observer,
                cached.form == key.form, cached.number != 0
            {
                number = cached.number
            } else {
                number = self.number(of: site, key: key)
                context.lastSite = (key.file, key.line, key.observer, key.form, number)
            }
            defer { context.registrationSite = number }
            return context.registrationSite
        }
    }

    /// Ends what `enter` began, putting back the site it returned.
    @usableFromInline
    static func leave(_ previous: UInt16) {
        ThreadContext.withCurrent { $0.registrationSite = previous }
    }

    /// The site this thread's registrations come from now (0: unknown).
    static var current: UInt16 {
        ThreadContext.withCurrent { $0.registrationSite }
    }

    /// The site numbered `number`, if it is known.
    static func site(_ number: UInt16) -> RegistrationSite? {
        guard number > 0 else { return nil }
        return lock.withLock { sites[Int(number) - 1] }
    }

    private static func number(of site: RegistrationSite, key: Key) -> UInt16 {
        lock.withLock {
            if let number = numbers[key] { return number }
            guard sites.count < Int(UInt16.max) else { return 0 }
            sites.append(site)
            let number = UInt16(sites.count)
            numbers[key] = number
            return number
        }
    }
}
