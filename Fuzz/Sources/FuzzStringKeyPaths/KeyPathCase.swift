import FuzzSupport
import KVOMediator

/// One input of `FuzzStringKeyPaths`, decoded:
///
/// - byte 0, the world and the ending: bit 0 a branch exists, bit 1 it is a campus, bit 2 the
///   headquarters is a campus, bit 3 the headquarters has an annex, bit 4 its building has a room,
///   bit 5 the controller retains what it observes, bits 6–7 how observing ends (per path, per
///   object, `unobserveAll()`, or releasing the controller);
/// - byte 1, the observing: bits 0–3 `KVOOptions`, bit 4 new sites are campuses;
/// - the rest: up to four key paths separated by 0xFF bytes (never part of UTF-8), each decoded as
///   UTF-8 with invalid sequences repaired.
struct KeyPathCase {
    enum Ending: Int {
        case unobservePaths, unobserveObject, unobserveAll, releaseController
    }

    let config: UInt8
    let options: KVOOptions
    let campuses: Bool
    let ending: Ending
    let paths: [String]

    init(_ bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        config = reader.byte()
        let observing = reader.byte()
        options = KVOOptions(rawValue: UInt(observing & 0x0F))
        campuses = ByteReader.flag(observing, 4)
        ending = Ending(rawValue: Int(config >> 6))!
        paths = reader.rest().split(separator: 0xFF, maxSplits: 4, omittingEmptySubsequences: false).prefix(4).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// Builds the world, observes each path, changes what it names, ends, and checks that everything
    /// is gone; traps on any broken invariant.
    func run() {
        let lifetimes = LifetimeWatch()
        do {
            let run = KeyPathRun(self, lifetimes: lifetimes)
            trace("world \(config), options \(options.rawValue), ending \(ending), new sites campuses: \(campuses)")
            for path in paths {
                trace("path \(path.debugDescription)")
                run.observe(path)
            }
            run.end()
        }
        lifetimes.requireAllGone()
    }

    /// The world this input asks for.
    func makeCompany(_ factory: WorldFactory) -> Company {
        let flag = { ByteReader.flag(config, $0) }
        let headquarters = WorldFactory(lifetimes: factory.lifetimes, campuses: flag(2)).site()
        if flag(3) { headquarters.annex = factory.building() }
        if flag(4) { headquarters.building.room = factory.room() }
        let branch = flag(0) ? WorldFactory(lifetimes: factory.lifetimes, campuses: flag(1)).site() : nil
        let company = Company(headquarters: headquarters, branch: branch)
        factory.lifetimes.watch(company, "the Company")
        return company
    }
}

/// The observer: its controller is the run's, so that the run can release the controller alone.
final class PathObserver {}
