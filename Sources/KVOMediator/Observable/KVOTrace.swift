import Synchronization

/// An opt-in trace of changes, to see why a callback fired (or why it did not): each change of an
/// observed property, the object, the property, its old and new values, and every registration it runs,
/// with where that registration was made.
///
/// ```swift
/// KVOTrace.start()              // to standard error; or KVOTrace.start { entry in log(entry) }
/// profile.name = "Grace"
/// // KVOTrace: <Profile: 0x6000…>.name: "Ada" → "Grace" (1 registration)
/// //   name: ProfileView, made at App/ProfileView.swift:12 (block, on the changing thread)
/// KVOTrace.stop()
/// ```
///
/// The report is made on the thread that makes the change, before the change is announced: a trace line
/// comes before the callbacks it explains. It covers `@Observed` and `@ObservedWeak` sets (those a collection
/// proxy makes too, as settings of the whole collection) and changes announced by hand
/// (`didChangeValue(for:)`, `didChange(_:at:for:)` and `didChange(_:using:for:)`, whose old values the
/// library does not know; a computed property announced so is one entry, named by what it reads).
/// There is one trace per process: `start` replaces the reporter, `stop()` ends it. Off, it costs nothing: a set asks
/// whether to trace only on the path it takes while a transaction or a collection mutation runs somewhere.
/// On, every set of an observed property takes that path, and each report describes values and names.
///
/// > Tip: Trace around the few lines you are debugging, not for a whole run: describing every change of a
/// > busy model is slow, and the report goes to standard error unless you pass your own.
public enum KVOTrace {
    /// Starts tracing to standard error (each entry's description), replacing the reporter if a trace
    /// runs already.
    public static func start() {
        start { writeToStandardError("\($0)") }
    }

    /// Starts tracing, replacing the reporter if a trace runs already.
    ///
    /// - Parameter report: Called with each change, on the thread that makes it, before its callbacks.
    public static func start(_ report: @escaping @Sendable (KVOTraceEntry) -> Void) {
        Tracing.lock.withLock {
            Tracing.reporter = report
            if !Tracing.isOn.load(ordering: .relaxed) {
                Tracing.isOn.store(true, ordering: .releasing)
                ThreadModes.running.wrappingAdd(1, ordering: .relaxed)
            }
        }
    }

    /// Stops tracing. Idempotent.
    public static func stop() {
        Tracing.lock.withLock {
            Tracing.reporter = nil
            if Tracing.isOn.load(ordering: .relaxed) {
                Tracing.isOn.store(false, ordering: .releasing)
                ThreadModes.running.wrappingSubtract(1, ordering: .relaxed)
            }
        }
    }

    /// Whether a trace runs.
    public static var isTracing: Bool {
        Tracing.isOn.load(ordering: .acquiring)
    }
}

/// The trace's state: whether it runs (read on the path of sets while any mode runs) and its reporter.
enum Tracing {
    static let isOn = Atomic<Bool>(false)
    static let lock = Lock()
    nonisolated(unsafe) static var reporter: (@Sendable (KVOTraceEntry) -> Void)?  // guarded by `lock`

    /// Reports `entry`, if a trace still runs (with no lock held while the reporter runs).
    static func report(_ entry: () -> KVOTraceEntry) {
        guard let reporter = lock.withLock({ reporter }) else { return }
        reporter(untracked(entry))
    }
}

extension KVORegistrar {
    /// Reports a change of the slot `slot` of `object` to the trace: its values (nil: not known) and the
    /// registrations depending on it.
    func trace(_ slot: SlotKey, of object: AnyObject, oldValue: String?, newValue: String?) {
        trace([slot], named: name(of: slot) ?? "<unnamed>", of: object, oldValue: oldValue, newValue: newValue)
    }

    /// Reports a change of what reads `slots` of `object`, named `name`, to the trace: its values (nil: not
    /// known) and the registrations depending on any of the slots, each once.
    func trace(_ slots: [SlotKey], named name: String, of object: AnyObject, oldValue: String?, newValue: String?) {
        Tracing.report {
            let infos = withState { state in
                var infos: [SlotObserver] = []
                for slot in slots {
                    guard let index = state.entryIndex(for: slot) else { continue }
                    for info in state.entry(at: index).infos where !infos.contains(where: { $0 === info }) {
                        infos.append(info)
                    }
                }
                return infos
            }
            return KVOTraceEntry(
                object: "<\(type(of: object)): \(hexAddress(of: object))>",
                keyPath: name,
                oldValue: oldValue,
                newValue: newValue,
                registrations: infos.map(\.traced)
            )
        }
    }

    /// `trace(_:of:oldValue:newValue:)` for an `@Observed` set, its values at these addresses.
    @inline(never)
    func traceSet(field: Int, of object: AnyObject, oldValue: ValueAddress, newValue: ValueAddress, type: Any.Type) {
        trace(
            .field(field),
            of: object,
            oldValue: Self.traceDescription(of: oldValue.loadBoxed(as: type)),
            newValue: Self.traceDescription(of: newValue.loadBoxed(as: type))
        )
    }

    /// A change announced by hand (`didChangeValue(for:)`) of what `keyPath` reads on `object`, reported to
    /// the trace: its value now; the one before is not known here.
    /// (One entry, named as messages name `keyPath`: a computed property's value is its own, not that of
    /// each property it reads.)
    func traceManualChange<Object: KeyValueObservable, Value>(of object: Object, keyPath: KeyPath<Object, Value>) {
        let now = Self.traceDescription(of: untracked { object[keyPath: keyPath] })
        let reads = ReadProbe.reads(of: keyPath, on: object).filter { $0.registrar === self }
        // (A key path that reads nothing of this object is a slot itself: custom storage announced before a read.)
        let slots = reads.isEmpty ? [SlotKey.keyPath(keyPath)] : reads.map(\.slot)
        trace(slots, named: traceName(of: keyPath, reads: reads, on: object), of: object, oldValue: nil, newValue: now)
    }

    /// How the trace names a key path announced by hand: the type's name for it; the property, when it is
    /// one (its own slot, or custom storage reported as itself); else what it reads.
    private func traceName<Object: KeyValueObservable>(
        of keyPath: AnyKeyPath,
        reads: [Access],
        on object: Object
    )
        -> String
    {
        if let declared = Object.keyPathName(for: keyPath) { return declared }
        let ownSlot = reads.count == 1 && reads[0].slot == .keyPath(keyPath) ? reads[0].slot : nil
        if let slot = reads.onlySlot(of: self, readThrough: keyPath) ?? ownSlot {
            return name(of: slot) ?? displayName(of: keyPath, on: object)
        }
        return reads.isEmpty ? displayName(of: keyPath, on: object) : computedName(reading: namedReads(reads))
    }

    /// A value as a trace shows it: as `debugPrint` would, cut to 200 characters.
    static func traceDescription(of value: Any) -> String {
        let text = String(reflecting: value)
        return text.count > 200 ? String(text.prefix(199)) + "…" : text
    }
}
