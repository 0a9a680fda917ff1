#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the library's caches are on: `KVO_MEDIATOR_CACHES=off` in the environment turns every one
/// of them off for the process (read once, when the first cache is made).
///
/// A cache is an accelerator only: a miss changes speed, never a registration, a record or a name.
/// This switch proves it: the randomized model suite runs with caches on and off in CI and must receive
/// exactly what the reference model states both ways. Each cache asks once, when it is made, so a
/// lookup pays nothing for the switch. What stays on is not a cache of history: a class's `@Observed`
/// fields (`ObservedFields`' table, read from the runtime's metadata, as the runtime keeps that
/// metadata), and per-registration facts that are a pure function of its own key path.
enum CacheSwitch {
    static let cachesAreOn: Bool = {
        guard let value = getenv("KVO_MEDIATOR_CACHES") else { return true }
        return String(cString: value) != "off"
    }()
}
